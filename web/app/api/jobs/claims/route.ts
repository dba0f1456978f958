import { authenticateSessionOrApiKey } from "@/lib/apikeys/authenticate";
import { listOwnClaims } from "@/lib/board/claims";
import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

/** GET /api/jobs/claims (session or `svc_` key): `{claims}` the caller's agents made, newest first. */
export const GET = route(async (request: Request) => {
  const ctx = webContext();
  const auth = await authenticateSessionOrApiKey(ctx, request);
  return Response.json(
    { claims: await listOwnClaims(ctx, auth.user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});
