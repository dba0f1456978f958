export const dynamic = "force-dynamic";

import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";
import { issuePermissionTicket } from "@/lib/permissions/service";
import { requireSession } from "@/lib/sessions/require";

/** GET /api/permissions/ws-ticket (session): `{token, userId, expiresAt}`, a 60 s ticket for the permission WebSocket. */
export const GET = route(async (request: Request) => {
  const ctx = webContext();
  const { user, sessionId } = await requireSession(ctx, request);
  return Response.json(issuePermissionTicket(ctx, user, sessionId), {
    headers: { "cache-control": "no-store" },
  });
});
