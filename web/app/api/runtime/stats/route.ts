export const dynamic = "force-dynamic";

import { runtimeOperation, runtimeRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/stats (session or key with agent:read): the backend's answer for the user's newest agent. */
export const GET = runtimeRoute({ auth: { area: "agent", access: "read" } }, runtimeOperation("stats"));
