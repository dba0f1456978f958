export const dynamic = "force-dynamic";

import { logsRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/logs?lines= (session): the user's newest agent's last log lines, from its platform. */
export const GET = logsRoute;
