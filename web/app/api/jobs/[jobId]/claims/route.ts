import { listClaims } from "@/lib/board/claims";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

interface ClaimsRoute {
  params: Promise<{ jobId: string }>;
}

/** GET /api/jobs/{jobId}/claims (session or `svc_` key, the listing's owner): `{claims}`, newest first. */
export const GET = route(
  { auth: { area: "board", access: "read" } },
  async (request: Request, { params }: ClaimsRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const claims = await listClaims(ctx, user.id, (await params).jobId);
    return Response.json({ claims }, { headers: { "cache-control": "no-store" } });
  },
);
