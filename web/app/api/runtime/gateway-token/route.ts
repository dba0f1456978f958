export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { runtimeOperation } from "@/lib/runtime/routes";

/** GET /api/runtime/gateway-token (session or key with agent:write: the token controls the agent): the backend's answer for the user's newest agent. */
export const GET = route(
  { auth: { area: "agent", access: "write" }, errorShape: "gateway" },
  runtimeOperation("gateway-token"),
);
