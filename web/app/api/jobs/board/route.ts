import { boardPostKind, listBoardQuery } from "@/lib/board/inputs";
import { createCompany, createListing, listListings, parseBoardPost } from "@/lib/board/service";
import { webContext } from "@/lib/infra/context";
import { parseWith, readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser, signedInUserOf } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/jobs/board (public): `{jobs}`, at most 50, newest published first; drafts only for their owner. */
export const GET = route(
  { auth: { area: "board", access: "read", optional: true } },
  async (request: Request) => {
    const ctx = webContext();
    const query = parseWith(listBoardQuery, Object.fromEntries(new URL(request.url).searchParams));
    const user = await signedInUserOf(ctx, request);
    return Response.json(
      { jobs: await listListings(ctx, user?.id, query) },
      { headers: { "cache-control": "no-store" } },
    );
  },
);

/** POST /api/jobs/board (session): 201 `{job}` (a draft listing), or with `type: "company"` 201 `{company}`. */
export const POST = route({ auth: { area: "board", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const body = parseBoardPost(await readJson(request, boardPostKind));
  if (body.kind === "company") {
    return Response.json({ company: await createCompany(ctx, user.id, body.input) }, { status: 201 });
  }
  return Response.json({ job: await createListing(ctx, user.id, body.input) }, { status: 201 });
});
