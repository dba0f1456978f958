import { socialPosts } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as LIST, POST } from "@/app/api/social/posts/route";
import { createApiKey, revokeApiKey } from "../apikeys/service";
import { agentOf } from "../board/testing";
import { type CookieJar, makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";

const { clock } = useWebTestContext();
const db = () => webContext().db;

interface Auth {
  jar?: CookieJar;
  key?: string;
}
function requestOf(
  auth: Auth,
  extra: { json?: unknown; body?: string; headers?: Record<string, string> } = {},
) {
  const headers = { ...(auth.key ? { authorization: `Bearer ${auth.key}` } : {}), ...extra.headers };
  return { path: "/api/social/posts", jar: auth.jar, ...extra, headers };
}
async function post(
  json: unknown,
  auth: Auth,
  extra: { body?: string; headers?: Record<string, string> } = {},
) {
  const res = await POST(makeRequest({ method: "POST", ...requestOf(auth, { json, ...extra }) }));
  return { status: res.status, body: await res.json() };
}
async function list(auth: Auth) {
  const res = await LIST(makeRequest(requestOf(auth)));
  return { status: res.status, body: await res.json() };
}
async function total() {
  const result = await db().execute<{ n: number }>(sql`select count(*)::int as n from social_posts`);
  return result.rows[0].n;
}

describe("POST /api/social/posts", () => {
  it("with a session: 201 {post: {id, userId, agentId, content, createdAt}}", async () => {
    const { user, jar } = await signedInUser();
    const { status, body } = await post({ content: "Hello, agents" }, { jar });
    expect(status).toBe(201);
    expect(body).toEqual({
      post: {
        id: expect.stringMatching(/^pst_[0-9a-z]{20}$/),
        userId: user.id,
        agentId: null,
        content: "Hello, agents",
        createdAt: clock.now().toISOString(),
      },
    });
  });

  it("with a bearer API key, as one of the caller's agents; the key is recorded", async () => {
    const { user } = await signedInUser();
    const agentId = await agentOf(user.id);
    const key = await createApiKey(webContext(), user.id, { name: "poster", scopes: ["board:write"] });
    const { status, body } = await post({ content: "Posted by my agent", agentId }, { key: key.key });
    expect(status).toBe(201);
    expect(body.post).toMatchObject({ userId: user.id, agentId, content: "Posted by my agent" });
    const [row] = await db().select().from(socialPosts).where(eq(socialPosts.id, body.post.id));
    expect(row.apiKeyId).toBe(key.id);
  });

  it("a session wins over a bearer key of another user", async () => {
    const a = await signedInUser();
    const b = await signedInUser();
    const key = await createApiKey(webContext(), b.user.id, { name: "b", scopes: ["board:write"] });
    const { body } = await post({ content: "mine" }, { jar: a.jar, key: key.key });
    expect(body.post.userId).toBe(a.user.id);
  });

  it("a revoked key, an unknown key or no credentials → 401, nothing written", async () => {
    const { user } = await signedInUser();
    const key = await createApiKey(webContext(), user.id, { name: "old", scopes: ["board:write"] });
    await revokeApiKey(webContext(), user.id, key.id);
    const before = await total();
    for (const auth of [{ key: key.key }, { key: `svc_${"z".repeat(40)}` }, {}]) {
      const { status, body } = await post({ content: "nope" }, auth);
      expect(status).toBe(401);
      expect(body.code).toBe("unauthorized");
    }
    expect((await list({ key: key.key })).status).toBe(401);
    expect(await total()).toBe(before);
  });

  it("another user's agent or an unknown agent is 404, nothing written", async () => {
    const owner = await signedInUser();
    const theirs = await agentOf(owner.user.id);
    const { jar } = await signedInUser();
    const before = await total();
    for (const agentId of [theirs, "agt_unknown"]) {
      expect(await post({ content: "as you", agentId }, { jar })).toEqual({
        status: 404,
        body: { error: "agent not found", code: "agent_not_found" },
      });
    }
    expect(await total()).toBe(before);
  });

  it("content of 2,000 characters is accepted; bad input → 400 naming the field, nothing written", async () => {
    const { jar } = await signedInUser();
    expect((await post({ content: "x".repeat(2000) }, { jar })).status).toBe(201);
    const before = await total();
    for (const [json, message] of [
      [{}, "Post is required"],
      [{ content: "" }, "Post must not be empty"],
      [{ content: "   " }, "Post must not be empty"],
      [{ content: "x".repeat(2001) }, "Post must be at most 2000 characters"],
      [{ content: 7 }, "Post must be a string"],
      [{ content: "hi", agentId: 3 }, "Author must be a string"],
      [{ content: "hi", body: {} }, "unknown field: body"],
    ] as const) {
      const { status, body } = await post(json, { jar });
      expect(status).toBe(400);
      expect(body.error).toContain(message);
    }
    const headers = { "content-type": "application/json" };
    expect((await post(undefined, { jar }, { body: "{oops", headers })).status).toBe(400);
    expect(await total()).toBe(before);
  });
});

describe("POST /api/social/posts content length in characters", () => {
  it("counts code points: 2,000 emoji (4,000 UTF-16 units) are accepted and stored whole; 2,001 are 400", async () => {
    const { jar } = await signedInUser();
    const content = "🤖".repeat(2000);
    const created = await post({ content }, { jar });
    expect(created.status).toBe(201);
    expect(created.body.post.content).toBe(content);
    const before = await total();
    const refused = await post({ content: "🤖".repeat(2001) }, { jar });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("Post must be at most 2000 characters");
    expect(await total()).toBe(before);
  });
});

describe("GET /api/social/posts", () => {
  it("lists the caller's posts newest first, by session or by key, nobody else's", async () => {
    const { user, jar } = await signedInUser();
    const first = (await post({ content: "one" }, { jar })).body.post;
    clock.advance(1000);
    const second = (await post({ content: "two" }, { jar })).body.post;
    await post({ content: "stranger" }, { jar: (await signedInUser()).jar });
    expect(await list({ jar })).toEqual({ status: 200, body: { posts: [second, first] } });
    const key = await createApiKey(webContext(), user.id, { name: "reader", scopes: ["board:write"] });
    expect(await list({ key: key.key })).toEqual({ status: 200, body: { posts: [second, first] } });
  });
});
