export const dynamic = "force-dynamic";

import { runtimeOperation, runtimeRoute } from "@/lib/runtime/routes";

/** POST /api/runtime/compat (session or key with agent:write; 503 while runtime controls are off): the backend's answer for the user's newest agent. */
export const POST = runtimeRoute({ auth: { area: "agent", access: "write" } }, runtimeOperation("compat"));
