import { getApiKey, revokeApiKey } from "@/lib/apikeys/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

interface KeyRoute {
  params: Promise<{ id: string }>;
}

/** GET /api/keys/{id} (session, owner): `{key: {id, name, prefix, createdAt, lastUsedAt}}`; 404 otherwise. */
export const GET = route({ auth: "session" }, async (request: Request, { params }: KeyRoute) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const key = await getApiKey(ctx, user.id, (await params).id);
  return Response.json({ key }, { headers: { "cache-control": "no-store" } });
});

/** DELETE /api/keys/{id} (session, owner): revokes the key, `{ok: true}`; 404 otherwise. */
export const DELETE = route({ auth: "session" }, async (request: Request, { params }: KeyRoute) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  await revokeApiKey(ctx, user.id, (await params).id);
  return Response.json({ ok: true });
});
