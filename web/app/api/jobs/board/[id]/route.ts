import { updateListingStatusBody } from "@/lib/board/inputs";
import { readListing, updateListingStatus } from "@/lib/board/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser, signedInUserOf } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

interface ListingRoute {
  params: Promise<{ id: string }>;
}

/** GET /api/jobs/board/{id}: `{job}` with its company, counting one view; drafts only for their owner, else 404. */
export const GET = route(
  { auth: { area: "board", access: "read", optional: true } },
  async (request: Request, { params }: ListingRoute) => {
    const ctx = webContext();
    const user = await signedInUserOf(ctx, request);
    const job = await readListing(ctx, user?.id, (await params).id);
    return Response.json({ job }, { headers: { "cache-control": "no-store" } });
  },
);

/** PATCH /api/jobs/board/{id} (session, owner) `{status}`: `{job}`; the first `active` sets `publishedAt`. */
export const PATCH = route(
  { auth: { area: "board", access: "write" } },
  async (request: Request, { params }: ListingRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const { status } = await readJson(request, updateListingStatusBody);
    return Response.json({ job: await updateListingStatus(ctx, user.id, (await params).id, status) });
  },
);
