export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { runtimeOperation } from "@/lib/runtime/routes";

/** GET /api/runtime/health (session or key with agent:read): the backend's probe of the user's newest agent; no agent → 200 `{status: "no_agent"}`. */
export const GET = route(
  { auth: { area: "agent", access: "read" }, errorShape: "gateway" },
  runtimeOperation("health"),
);
