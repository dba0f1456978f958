import { authenticateSessionOrApiKey } from "@/lib/apikeys/authenticate";
import { claimListing } from "@/lib/board/claims";
import { claimBody } from "@/lib/board/schema";
import { webContext } from "@/lib/context";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";

export const dynamic = "force-dynamic";

interface ClaimRoute {
  params: Promise<{ jobId: string }>;
}

/** POST /api/jobs/{jobId}/claim (session or `svc_` key) `{claimerAgentId}`: 201 `{claim}`; once per agent. */
export const POST = route(async (request: Request, { params }: ClaimRoute) => {
  const ctx = webContext();
  const auth = await authenticateSessionOrApiKey(ctx, request);
  const { claimerAgentId } = await readJson(request, claimBody);
  const caller = { userId: auth.user.id, apiKeyId: auth.apiKeyId };
  return Response.json(
    { claim: await claimListing(ctx, caller, (await params).jobId, claimerAgentId) },
    { status: 201 },
  );
});
