import { authenticateSessionOrApiKey } from "@/lib/apikeys/authenticate";
import { listClaims } from "@/lib/board/claims";
import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

interface ClaimsRoute {
  params: Promise<{ jobId: string }>;
}

/** GET /api/jobs/{jobId}/claims (session or `svc_` key, the listing's owner): `{claims}`, newest first. */
export const GET = route(async (request: Request, { params }: ClaimsRoute) => {
  const ctx = webContext();
  const auth = await authenticateSessionOrApiKey(ctx, request);
  const claims = await listClaims(ctx, auth.user.id, (await params).jobId);
  return Response.json({ claims }, { headers: { "cache-control": "no-store" } });
});
