export const dynamic = "force-dynamic";

import { maintenanceRoute } from "@/lib/runtime/routes";

/** POST /api/runtime/maintenance (session) `{action}`: `restart` (default) or `factory-reset`; else 400. */
export const POST = maintenanceRoute;
