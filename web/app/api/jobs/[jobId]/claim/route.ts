import { claimListing } from "@/lib/board/claims";
import { claimBody } from "@/lib/board/inputs";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { actorOf, requireCaller } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

interface ClaimRoute {
  params: Promise<{ jobId: string }>;
}

/** POST /api/jobs/{jobId}/claim (session or `svc_` key) `{claimerAgentId}`: 201 `{claim}`; once per agent. */
export const POST = route(
  { auth: { area: "board", access: "write" } },
  async (request: Request, { params }: ClaimRoute) => {
    const ctx = webContext();
    const caller = actorOf(await requireCaller(ctx, request));
    const { claimerAgentId } = await readJson(request, claimBody);
    return Response.json(
      { claim: await claimListing(ctx, caller, (await params).jobId, claimerAgentId) },
      { status: 201 },
    );
  },
);
