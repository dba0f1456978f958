export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { provisionBody, readOptionalJson } from "@/lib/runtime/inputs";
import { provisionAgent } from "@/lib/runtime/provision";
import { requireSessionUser } from "@/lib/sessions/require";

/**
 * POST /api/provision (session) `{name?, aiProvider?, agentType?}`: creates or re-provisions the user's agent
 * and enqueues its provision job; 202 `{success, queued, job, agentId}`.
 */
export const POST = route({ auth: { area: "agent", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const body = await readOptionalJson(request, provisionBody);
  return Response.json(await provisionAgent(ctx, user, body), { status: 202 });
});
