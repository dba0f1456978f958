export const dynamic = "force-dynamic";

import { runtimeOperationRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/health (session): the backend's probe of the user's newest agent; no agent → 200 `{status: "no_agent"}`. */
export const GET = runtimeOperationRoute("health");
