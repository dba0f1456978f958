export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { parseWith, readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { decisionBody, pendingPageQuery } from "@/lib/permissions/inputs";
import { decidePermission, listPendingPermissions } from "@/lib/permissions/service";
import { requireSessionUser } from "@/lib/sessions/require";

/**
 * GET /api/permissions?agentId=&limit=&cursor= (session, or `Bearer svc_<key>`):
 * `{pending, nextCursor}` of that user.
 */
export const GET = route({ auth: { area: "approvals", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const query = parseWith(pendingPageQuery, Object.fromEntries(new URL(request.url).searchParams));
  const body = await listPendingPermissions(ctx, user, query);
  return Response.json(body, { headers: { "cache-control": "no-store" } });
});

/** POST /api/permissions (session or API key) `{requestId, decision, feedback?, modifiedInput?}`: `{success, requestId, decision}`. */
export const POST = route({ auth: { area: "approvals", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const body = await readJson(request, decisionBody);
  return Response.json(await decidePermission(ctx, user, body));
});
