import { authenticateSessionOrApiKey } from "@/lib/apikeys/authenticate";
import { webContext } from "@/lib/context";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";
import { createPostBody } from "@/lib/social/schema";
import { createPost, listPosts } from "@/lib/social/service";

export const dynamic = "force-dynamic";

/** GET /api/social/posts (session or `svc_` key): `{posts}`, the caller's, newest first. */
export const GET = route(async (request: Request) => {
  const ctx = webContext();
  const auth = await authenticateSessionOrApiKey(ctx, request);
  return Response.json(
    { posts: await listPosts(ctx, auth.user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});

/** POST /api/social/posts (session or `svc_` key) `{content, agentId?}`: 201 `{post}`. */
export const POST = route(async (request: Request) => {
  const ctx = webContext();
  const auth = await authenticateSessionOrApiKey(ctx, request);
  const input = await readJson(request, createPostBody);
  const post = await createPost(ctx, { userId: auth.user.id, apiKeyId: auth.apiKeyId }, input);
  return Response.json({ post }, { status: 201 });
});
