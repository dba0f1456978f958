import { metricsRegistry } from "@svc/common/metrics/index";
import { jobApplications, jobListings } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as APPLY, GET as LIST } from "@/app/api/jobs/apply/route";
import { type CookieJar, makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import type { ApplicationWithListingView } from "./inputs";
import { publishedListing, setStatusAs } from "./testing";

const { clock } = useWebTestContext();
const db = () => webContext().db;

async function apply(
  json: unknown,
  jar?: CookieJar,
  extra: { body?: string; headers?: Record<string, string> } = {},
) {
  const res = await APPLY(makeRequest({ method: "POST", path: "/api/jobs/apply", json, jar, ...extra }));
  return { status: res.status, body: await res.json() };
}
async function applyCountOf(id: string) {
  const [row] = await db().select().from(jobListings).where(eq(jobListings.id, id));
  return row.applyCount;
}
/** `job_board_events_total{event="application"}` of this process. */
async function applicationsCounted(): Promise<number> {
  const metric = metricsRegistry().getSingleMetric("job_board_events_total");
  const values = metric ? (await metric.get()).values : [];
  return values.find((v) => v.labels.event === "application")?.value ?? 0;
}
async function applicationRows() {
  const result = await db().execute<{ n: number }>(sql`select count(*)::int as n from job_applications`);
  return result.rows[0].n;
}

describe("POST /api/jobs/apply", () => {
  it("applies to an active listing: 201 {application} with hasProfile false; applyCount +1", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user, jar } = await signedInUser();
    const { status, body } = await apply({ listingId: listing.id }, jar);
    expect(status).toBe(201);
    expect(body).toEqual({
      application: {
        id: expect.stringMatching(/^app_[0-9a-z]{20}$/),
        listingId: listing.id,
        userId: user.id,
        hasProfile: false,
        createdAt: clock.now().toISOString(),
      },
    });
    expect(await applyCountOf(listing.id)).toBe(1);
  });

  it("the second application is 400 already applied, and the count stays", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { jar } = await signedInUser();
    await apply({ listingId: listing.id }, jar);
    const again = await apply({ listingId: listing.id }, jar);
    expect(again).toEqual({ status: 400, body: { error: "already applied", code: "already_applied" } });
    expect(await applyCountOf(listing.id)).toBe(1);
  });

  it("10 concurrent applications of one user: one 201, nine 400, applyCount 1", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const { user, jar } = await signedInUser();
    const countedBefore = await applicationsCounted();
    const results = await Promise.all(
      Array.from({ length: 10 }, () => apply({ listingId: listing.id }, jar)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(400)]);
    expect(await applyCountOf(listing.id)).toBe(1);
    expect(await applicationsCounted()).toBe(countedBefore + 1);
    const rows = await db().select().from(jobApplications).where(eq(jobApplications.userId, user.id));
    expect(rows).toHaveLength(1);
  });

  it("concurrent applications of different users all count", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar);
    const applicants = await Promise.all(Array.from({ length: 8 }, () => signedInUser()));
    const results = await Promise.all(applicants.map(({ jar }) => apply({ listingId: listing.id }, jar)));
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(await applyCountOf(listing.id)).toBe(8);
  });

  it("a draft, a closed or an unknown listing is 404 job not found or not active; nothing written", async () => {
    const owner = await signedInUser();
    const draft = await publishedListing(owner.jar, {}, "draft");
    const closed = await publishedListing(owner.jar, {}, "closed");
    const { jar } = await signedInUser();
    const before = await applicationRows();
    for (const listingId of [draft.id, closed.id, "lst_unknown"]) {
      expect(await apply({ listingId }, jar)).toEqual({
        status: 404,
        body: { error: "job not found or not active", code: "not_found" },
      });
    }
    expect(await applicationRows()).toBe(before);
    expect(await applyCountOf(draft.id)).toBe(0);
    expect(await applyCountOf(closed.id)).toBe(0);
  });

  it("bad input → 400 naming the field; no session → 401; nothing written", async () => {
    const { jar } = await signedInUser();
    const before = await applicationRows();
    for (const [json, message] of [
      [{}, "Listing is required"],
      [{ listingId: 7 }, "Listing must be a string"],
      [{ listingId: "" }, "Listing must not be empty"],
      [{ listingId: "x".repeat(101) }, "Listing must be at most 100"],
      [{ listingId: "lst_x", note: "hi" }, "unknown field: note"],
    ] as const) {
      const { status, body } = await apply(json, jar);
      expect(status).toBe(400);
      expect(body.error).toContain(message);
    }
    expect(
      (await apply(undefined, jar, { body: "{", headers: { "content-type": "application/json" } })).status,
    ).toBe(400);
    expect((await apply({ listingId: "lst_x" })).status).toBe(401);
    expect(await applicationRows()).toBe(before);
  });
});

describe("GET /api/jobs/apply", () => {
  it("lists the caller's applications newest first, each with its listing and company", async () => {
    const owner = await signedInUser();
    const first = await publishedListing(owner.jar, { title: "First" });
    const second = await publishedListing(owner.jar, { title: "Second" });
    const { jar } = await signedInUser();
    const a = (await apply({ listingId: first.id }, jar)).body.application;
    clock.advance(1000);
    const b = (await apply({ listingId: second.id }, jar)).body.application;
    await apply({ listingId: first.id }, (await signedInUser()).jar);
    const res = await LIST(makeRequest({ path: "/api/jobs/apply", jar }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { applications: ApplicationWithListingView[] };
    expect(body.applications.map((x) => x.id)).toEqual([b.id, a.id]);
    expect(body.applications[0]).toEqual({ ...b, listing: { ...second, applyCount: 1 } });
    expect(body.applications[1].listing?.company.id).toBe(first.companyId);
  });

  it("a listing moved back to draft is withheld (listing null) from applicants, shown to its owner, back once republished", async () => {
    const owner = await signedInUser();
    const listing = await publishedListing(owner.jar, { title: "Soon secret" });
    const applicant = await signedInUser();
    const application = (await apply({ listingId: listing.id }, applicant.jar)).body.application;
    // The owner applies too (while it is active), so the owner's own view of its draft can be checked.
    await apply({ listingId: listing.id }, owner.jar);
    expect((await setStatusAs(owner.jar, listing.id, "draft")).status).toBe(200);
    const listOf = async (jar: CookieJar) => {
      const res = await LIST(makeRequest({ path: "/api/jobs/apply", jar }));
      expect(res.status).toBe(200);
      return ((await res.json()) as { applications: ApplicationWithListingView[] }).applications;
    };
    const seen = await listOf(applicant.jar);
    expect(seen).toEqual([{ ...application, listing: null }]);
    expect(JSON.stringify(seen)).not.toContain("Soon secret");
    const own = await listOf(owner.jar);
    expect(own[0].listing).toMatchObject({ id: listing.id, status: "draft", title: "Soon secret" });
    expect((await setStatusAs(owner.jar, listing.id, "active")).status).toBe(200);
    expect((await listOf(applicant.jar))[0].listing).toMatchObject({ id: listing.id, status: "active" });
  });

  it("401 without a session", async () => {
    expect((await LIST(makeRequest({ path: "/api/jobs/apply" }))).status).toBe(401);
  });
});
