export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { runtimeOperation } from "@/lib/runtime/routes";

/** POST /api/runtime/start (session or key with agent:write; 503 while runtime controls are off): the backend's answer for the user's newest agent. */
export const POST = route(
  { auth: { area: "agent", access: "write" }, errorShape: "gateway" },
  runtimeOperation("start"),
);
