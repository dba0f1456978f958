import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { listPasskeys } from "@/lib/passkeys/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/passkeys (session): `{passkeys: [{id, label, createdAt, lastUsedAt}]}` of the signed-in user. */
export const GET = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const passkeys = await listPasskeys(ctx, user.id);
  return Response.json({ passkeys }, { headers: { "cache-control": "no-store" } });
});
