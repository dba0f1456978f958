export const dynamic = "force-dynamic";

import { runtimeMaintenance, runtimeRoute } from "@/lib/runtime/routes";

/** POST /api/runtime/maintenance (session or key with agent:write) `{action}`: `restart` (default) or `factory-reset`; else 400. */
export const POST = runtimeRoute({ auth: { area: "agent", access: "write" } }, runtimeMaintenance);
