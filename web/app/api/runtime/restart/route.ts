export const dynamic = "force-dynamic";

import { runtimeOperationRoute } from "@/lib/runtime/routes";

/** POST /api/runtime/restart (session; 503 while runtime controls are off): the backend's answer for the user's newest agent. */
export const POST = runtimeOperationRoute("restart");
