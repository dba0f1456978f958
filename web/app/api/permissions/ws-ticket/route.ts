export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { issuePermissionTicket } from "@/lib/permissions/service";
import { credentialIdOf, requireCaller } from "@/lib/sessions/require";

/** GET /api/permissions/ws-ticket (session, or key with approvals:write: the socket decides too): `{token, userId, expiresAt}`, a 60 s ticket for the permission WebSocket. */
export const GET = route({ auth: { area: "approvals", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const caller = await requireCaller(ctx, request);
  return Response.json(issuePermissionTicket(ctx, caller.user, credentialIdOf(caller)), {
    headers: { "cache-control": "no-store" },
  });
});
