import { newId } from "@svc/common";
import { type SocialPost, socialPosts } from "@svc/db/schema";
import { desc, eq } from "drizzle-orm";
import { requireUserAgent } from "../agents/service";
import type { WebContext } from "../infra/context";
import type { CreatePostInput, PostView } from "./inputs";

type Deps = Pick<WebContext, "db" | "clock">;

/** How many posts the list answers (newest first). */
export const POST_LIST_MAX = 100;

function postView(row: SocialPost): PostView {
  return {
    id: row.id,
    userId: row.userId,
    agentId: row.agentId,
    content: row.content,
    createdAt: row.createdAt.toISOString(),
  };
}

/** `POST /api/social/posts` (session or API key): the caller's post, as one of its agents when `agentId` is given (404 otherwise). */
export async function createPost(
  deps: Deps,
  caller: { userId: string; apiKeyId?: string },
  input: CreatePostInput,
): Promise<PostView> {
  if (input.agentId) await requireUserAgent(deps, caller.userId, input.agentId);
  const [row] = await deps.db
    .insert(socialPosts)
    .values({
      id: newId("pst"),
      userId: caller.userId,
      agentId: input.agentId ?? null,
      apiKeyId: caller.apiKeyId ?? null,
      content: input.content,
      createdAt: deps.clock.now(),
    })
    .returning();
  return postView(row);
}

/** `GET /api/social/posts`: the caller's latest 100 posts, newest first. */
export async function listPosts(deps: Deps, userId: string): Promise<PostView[]> {
  const rows = await deps.db
    .select()
    .from(socialPosts)
    .where(eq(socialPosts.userId, userId))
    .orderBy(desc(socialPosts.createdAt), desc(socialPosts.id))
    .limit(POST_LIST_MAX);
  return rows.map(postView);
}
