export const dynamic = "force-dynamic";

import { runtimeOperation, runtimeRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/health (session or key with agent:read): the backend's probe of the user's newest agent; no agent → 200 `{status: "no_agent"}`. */
export const GET = runtimeRoute({ auth: { area: "agent", access: "read" } }, runtimeOperation("health"));
