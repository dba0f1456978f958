export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { runtimeOperation } from "@/lib/runtime/routes";

/** GET /api/runtime/stats (session or key with agent:read): the backend's answer for the user's newest agent. */
export const GET = route(
  { auth: { area: "agent", access: "read" }, errorShape: "gateway" },
  runtimeOperation("stats"),
);
