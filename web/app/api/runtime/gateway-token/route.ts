export const dynamic = "force-dynamic";

import { runtimeOperation, runtimeRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/gateway-token (session or key with agent:write: the token controls the agent): the backend's answer for the user's newest agent. */
export const GET = runtimeRoute(
  { auth: { area: "agent", access: "write" } },
  runtimeOperation("gateway-token"),
);
