import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { actorOf, requireCaller, requireSessionUser } from "@/lib/sessions/require";
import { createPostBody } from "@/lib/social/inputs";
import { createPost, listPosts } from "@/lib/social/service";

export const dynamic = "force-dynamic";

/** GET /api/social/posts (session or `svc_` key): `{posts}`, the caller's, newest first. */
export const GET = route({ auth: { area: "board", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { posts: await listPosts(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});

/** POST /api/social/posts (session or `svc_` key) `{content, agentId?}`: 201 `{post}`. */
export const POST = route({ auth: { area: "board", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const caller = actorOf(await requireCaller(ctx, request));
  const input = await readJson(request, createPostBody);
  const post = await createPost(ctx, caller, input);
  return Response.json({ post }, { status: 201 });
});
