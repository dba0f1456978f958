export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { runtimeLogs } from "@/lib/runtime/routes";

/** GET /api/runtime/logs?lines= (session or key with agent:read): the user's newest agent's last log lines, from its platform. */
export const GET = route({ auth: { area: "agent", access: "read" }, errorShape: "gateway" }, runtimeLogs);
