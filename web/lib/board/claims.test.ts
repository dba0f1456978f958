import { jobClaims, platformJobs } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as CLAIM } from "@/app/api/jobs/[jobId]/claim/route";
import { GET as CLAIMS } from "@/app/api/jobs/[jobId]/claims/route";
import { GET as PLATFORM_JOB } from "@/app/api/jobs/[jobId]/route";
import { GET as OWN_CLAIMS } from "@/app/api/jobs/claims/route";
import { createApiKey, revokeApiKey } from "../apikeys/service";
import { type CookieJar, makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import type { ClaimView } from "./inputs";
import { agentOf, publishedListing, withParams } from "./testing";

const { clock } = useWebTestContext();
const db = () => webContext().db;

interface Auth {
  jar?: CookieJar;
  key?: string;
}
function authHeaders(auth: Auth): Record<string, string> {
  return auth.key ? { authorization: `Bearer ${auth.key}` } : {};
}
async function claim(jobId: string, json: unknown, auth: Auth = {}) {
  const res = await CLAIM(
    makeRequest({
      method: "POST",
      path: `/api/jobs/${jobId}/claim`,
      json,
      jar: auth.jar,
      headers: authHeaders(auth),
    }),
    withParams({ jobId }),
  );
  return { status: res.status, body: await res.json() };
}
async function claimsOf(jobId: string, auth: Auth = {}) {
  const res = await CLAIMS(
    makeRequest({ path: `/api/jobs/${jobId}/claims`, jar: auth.jar, headers: authHeaders(auth) }),
    withParams({ jobId }),
  );
  return { status: res.status, body: await res.json() };
}
async function claimRows() {
  const result = await db().execute<{ n: number }>(sql`select count(*)::int as n from job_claims`);
  return result.rows[0].n;
}

describe("POST /api/jobs/{jobId}/claim", () => {
  it("with a session: one of the caller's agents claims an active listing, 201 {claim}", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user, jar } = await signedInUser();
    const agentId = await agentOf(user.id);
    const { status, body } = await claim(listing.id, { claimerAgentId: agentId }, { jar });
    expect(status).toBe(201);
    expect(body).toEqual({
      claim: {
        id: expect.stringMatching(/^clm_[0-9a-z]{20}$/),
        jobId: listing.id,
        claimerAgentId: agentId,
        claimerAgentName: "worker",
        userId: user.id,
        createdAt: clock.now().toISOString(),
      },
    });
    const [row] = await db().select().from(jobClaims).where(eq(jobClaims.id, body.claim.id));
    expect(row.apiKeyId).toBeNull();
  });

  it("with a bearer API key: the key's owner claims, and the key is recorded", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user } = await signedInUser();
    const agentId = await agentOf(user.id);
    const key = await createApiKey(webContext(), user.id, { name: "agent", scopes: ["board:write"] });
    const { status, body } = await claim(listing.id, { claimerAgentId: agentId }, { key: key.key });
    expect(status).toBe(201);
    expect(body.claim).toMatchObject({ jobId: listing.id, claimerAgentId: agentId, userId: user.id });
    const [row] = await db().select().from(jobClaims).where(eq(jobClaims.id, body.claim.id));
    expect(row.apiKeyId).toBe(key.id);
  });

  it("a revoked key, an unknown key, a malformed header or no credentials → 401, nothing written", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user } = await signedInUser();
    const agentId = await agentOf(user.id);
    const key = await createApiKey(webContext(), user.id, { name: "agent", scopes: ["board:write"] });
    await revokeApiKey(webContext(), user.id, key.id);
    const before = await claimRows();
    for (const auth of [{ key: key.key }, { key: `svc_${"A".repeat(40)}` }, { key: "not-a-key" }, {}]) {
      const { status, body } = await claim(listing.id, { claimerAgentId: agentId }, auth);
      expect(status).toBe(401);
      expect(body.code).toBe("unauthorized");
    }
    expect(await claimRows()).toBe(before);
  });

  it("the second claim of one agent is 409; another agent of the caller may claim too", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user, jar } = await signedInUser();
    const first = await agentOf(user.id, "one");
    const second = await agentOf(user.id, "two");
    expect((await claim(listing.id, { claimerAgentId: first }, { jar })).status).toBe(201);
    expect(await claim(listing.id, { claimerAgentId: first }, { jar })).toEqual({
      status: 409,
      body: { error: "this agent has already claimed this job", code: "already_claimed" },
    });
    expect((await claim(listing.id, { claimerAgentId: second }, { jar })).status).toBe(201);
  });

  it("10 concurrent claims of one agent: one 201, nine 409, one row", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user } = await signedInUser();
    const agentId = await agentOf(user.id);
    const key = await createApiKey(webContext(), user.id, { name: "agent", scopes: ["board:write"] });
    const results = await Promise.all(
      Array.from({ length: 10 }, () => claim(listing.id, { claimerAgentId: agentId }, { key: key.key })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const rows = await db().select().from(jobClaims).where(eq(jobClaims.jobId, listing.id));
    expect(rows).toHaveLength(1);
  });

  it("another user's agent or an unknown agent is 404; a draft, closed or unknown listing is 404", async () => {
    const owner = await signedInUser();
    const active = await publishedListing(owner.jar);
    const draft = await publishedListing(owner.jar, {}, "draft");
    const closed = await publishedListing(owner.jar, {}, "closed");
    const { user, jar } = await signedInUser();
    const mine = await agentOf(user.id);
    const theirs = await agentOf(owner.user.id);
    const before = await claimRows();
    for (const claimerAgentId of [theirs, "agt_unknown"]) {
      expect(await claim(active.id, { claimerAgentId }, { jar })).toEqual({
        status: 404,
        body: { error: "agent not found", code: "agent_not_found" },
      });
    }
    for (const jobId of [draft.id, closed.id, "lst_unknown", "job_1700000000000_abcdefghij"]) {
      expect(await claim(jobId, { claimerAgentId: mine }, { jar })).toEqual({
        status: 404,
        body: { error: "job not found or not active", code: "not_found" },
      });
    }
    expect(await claimRows()).toBe(before);
  });

  it("bad input → 400 naming the field, nothing written", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const before = await claimRows();
    for (const [json, message] of [
      [{}, "Agent is required"],
      [{ claimerAgentId: 1 }, "Agent must be a string"],
      [{ claimerAgentId: "agt_x", extra: true }, "unknown field: extra"],
    ] as const) {
      const { status, body } = await claim(listing.id, json, { jar: owner.jar });
      expect(status).toBe(400);
      expect(body.error).toContain(message);
    }
    expect(await claimRows()).toBe(before);
  });
});

describe("GET /api/jobs/{jobId}/claims", () => {
  it("the listing's owner reads its claims newest first, by session or by key; anybody else gets 404", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const a = await signedInUser();
    const b = await signedInUser();
    const first = (await claim(listing.id, { claimerAgentId: await agentOf(a.user.id) }, { jar: a.jar })).body
      .claim;
    clock.advance(1000);
    const second = (await claim(listing.id, { claimerAgentId: await agentOf(b.user.id) }, { jar: b.jar }))
      .body.claim;
    const bySession = await claimsOf(listing.id, { jar: owner.jar });
    expect(bySession).toEqual({ status: 200, body: { claims: [second, first] as ClaimView[] } });
    const key = await createApiKey(webContext(), owner.user.id, { name: "reader", scopes: ["board:write"] });
    expect(await claimsOf(listing.id, { key: key.key })).toEqual(bySession);
    expect((await claimsOf(listing.id, { jar: a.jar })).status).toBe(404);
    expect((await claimsOf("lst_unknown", { jar: owner.jar })).status).toBe(404);
    expect((await claimsOf(listing.id)).status).toBe(401);
  });
});

describe("GET /api/jobs/claims", () => {
  it("the claims the caller's agents made, newest first, named; nobody else's; by session or by key", async () => {
    const owner = await signedInUser();
    const first = await publishedListing(owner.jar, { title: "First" });
    const second = await publishedListing(owner.jar, { title: "Second" });
    const { user, jar } = await signedInUser();
    const scout = await agentOf(user.id, "Scout");
    const other = await signedInUser();
    await claim(first.id, { claimerAgentId: await agentOf(other.user.id) }, { jar: other.jar });
    await claim(first.id, { claimerAgentId: scout }, { jar });
    clock.advance(1000);
    await claim(second.id, { claimerAgentId: scout }, { jar });
    const own = async (auth: Auth) => {
      const res = await OWN_CLAIMS(
        makeRequest({ path: "/api/jobs/claims", jar: auth.jar, headers: authHeaders(auth) }),
      );
      return { status: res.status, body: await res.json() };
    };
    const mine = await own({ jar });
    expect(mine.status).toBe(200);
    expect(mine.body.claims.map((c: ClaimView) => [c.jobId, c.claimerAgentId, c.claimerAgentName])).toEqual([
      [second.id, scout, "Scout"],
      [first.id, scout, "Scout"],
    ]);
    const key = await createApiKey(webContext(), user.id, { name: "reader", scopes: ["board:read"] });
    expect(await own({ key: key.key })).toEqual(mine);
    // A key without the board's read scope is refused, naming it.
    const filesOnly = await createApiKey(webContext(), user.id, { name: "files", scopes: ["files:read"] });
    const refused = await own({ key: filesOnly.key });
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ code: "insufficient_scope" });
    expect((await own({})).status).toBe(401);
  });
});

describe("/api/jobs/{jobId} beside the claim routes", () => {
  it("the platform-job read still answers its owner, and a listing id there is not a platform job", async () => {
    const { user, jar } = await signedInUser();
    const jobId = "job_1700000000000_abcdefghij";
    await db()
      .insert(platformJobs)
      .values({ id: jobId, userId: user.id, lane: "runtime_exec", jobType: "gateway_chat_completion" });
    const res = await PLATFORM_JOB(makeRequest({ path: `/api/jobs/${jobId}`, jar }), withParams({ jobId }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { job: { id: string; status: string } };
    expect(body.job).toMatchObject({ id: jobId, status: "queued" });

    const listing = await publishedListing(jar);
    const asJob = await PLATFORM_JOB(
      makeRequest({ path: `/api/jobs/${listing.id}`, jar }),
      withParams({ jobId: listing.id }),
    );
    expect(asJob.status).toBe(404);
    const agentId = await agentOf(user.id);
    expect((await claim(listing.id, { claimerAgentId: agentId }, { jar })).status).toBe(201);
  });
});
