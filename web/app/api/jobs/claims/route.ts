import { listOwnClaims } from "@/lib/board/claims";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/jobs/claims (session or `svc_` key): `{claims}` the caller's agents made, newest first. */
export const GET = route({ auth: { area: "board", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { claims: await listOwnClaims(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});
