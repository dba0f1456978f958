export const dynamic = "force-dynamic";

import { runtimeOperationRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/stats (session): the backend's answer for the user's newest agent (spec "Runtime maintenance"). */
export const GET = runtimeOperationRoute("stats");
