export const dynamic = "force-dynamic";

import { runtimeLogs, runtimeRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/logs?lines= (session or key with agent:read): the user's newest agent's last log lines, from its platform. */
export const GET = runtimeRoute({ auth: { area: "agent", access: "read" } }, runtimeLogs);
