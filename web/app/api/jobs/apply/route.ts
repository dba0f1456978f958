import { applyToListing, listApplications } from "@/lib/board/applications";
import { applyBody } from "@/lib/board/inputs";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/jobs/apply (session): `{applications}` with listing and company, newest first. */
export const GET = route({ auth: { area: "board", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { applications: await listApplications(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});

/** POST /api/jobs/apply (session) `{listingId}`: 201 `{application}`; once per listing and user. */
export const POST = route({ auth: { area: "board", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const { listingId } = await readJson(request, applyBody);
  return Response.json({ application: await applyToListing(ctx, user.id, listingId) }, { status: 201 });
});
