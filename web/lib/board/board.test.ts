import { companies, jobListings } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { PATCH, GET as READ } from "@/app/api/jobs/board/[id]/route";
import { GET as LIST, POST } from "@/app/api/jobs/board/route";
import { GET as COMPANIES } from "@/app/api/jobs/companies/route";
import { type CookieJar, makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import type { CompanyView, ListingView } from "./inputs";
import {
  createCompanyAs,
  createListingAs,
  listingFields,
  publishedListing,
  setStatusAs,
  withParams,
} from "./testing";

const { clock } = useWebTestContext();
const db = () => webContext().db;
const LONG_DESCRIPTION = "x".repeat(20_001);

async function list(query = "", jar?: CookieJar) {
  const res = await LIST(makeRequest({ path: `/api/jobs/board${query}`, jar }));
  return { status: res.status, body: (await res.json()) as { jobs: ListingView[]; error?: string } };
}
async function read(id: string, jar?: CookieJar) {
  const res = await READ(makeRequest({ path: `/api/jobs/board/${id}`, jar }), withParams({ id }));
  return { status: res.status, body: (await res.json()) as { job: ListingView; error?: string } };
}
async function post(
  json: unknown,
  jar?: CookieJar,
  extra: { body?: string; headers?: Record<string, string> } = {},
) {
  const res = await POST(makeRequest({ method: "POST", path: "/api/jobs/board", json, jar, ...extra }));
  return { status: res.status, body: await res.json() };
}
async function counts() {
  const result = await db().execute<{ listings: number; companies: number }>(
    sql`select (select count(*)::int from job_listings) as listings, (select count(*)::int from companies) as companies`,
  );
  return result.rows[0];
}

describe("POST /api/jobs/board (company)", () => {
  it("creates a company owned by the caller: 201 {company} with every field", async () => {
    const { user, jar } = await signedInUser();
    const { status, body } = await post(
      {
        type: "company",
        name: " Acme Robotics ",
        slug: "acme-robotics",
        website: "https://acme.example",
        githubOrg: "acme-bots",
      },
      jar,
    );
    expect(status).toBe(201);
    expect(body).toEqual({
      company: {
        id: expect.stringMatching(/^cmp_[0-9a-z]{20}$/),
        advertiserId: user.id,
        name: "Acme Robotics",
        slug: "acme-robotics",
        logoUrl: null,
        website: "https://acme.example",
        description: null,
        githubOrg: "acme-bots",
        hiredCount: 0,
        createdAt: clock.now().toISOString(),
        updatedAt: clock.now().toISOString(),
      },
    });
    const [row] = await db().select().from(companies).where(eq(companies.id, body.company.id));
    expect(row.advertiserId).toBe(user.id);
  });

  it("a taken slug is 409, and nothing is written", async () => {
    const { jar } = await signedInUser();
    await createCompanyAs(jar, { slug: "taken-slug" });
    const before = await counts();
    const other = await signedInUser();
    const { status, body } = await post(
      { type: "company", name: "Copy", slug: "taken-slug", website: "https://copy.example" },
      other.jar,
    );
    expect(status).toBe(409);
    expect(body).toEqual({
      error: 'a company with the slug "taken-slug" already exists',
      code: "slug_taken",
      field: "slug",
    });
    expect(await counts()).toEqual(before);
  });

  it.each([
    [{ name: "A", slug: "Bad_Slug", website: "https://a.example" }, "Slug may hold only lowercase"],
    [{ name: "A", slug: "ok", website: "ftp://a.example" }, "Website must be an http(s) URL"],
    [{ name: "A", slug: "ok" }, "Website is required"],
    [{ slug: "ok", website: "https://a.example" }, "Company name is required"],
    [{ name: 5, slug: "ok", website: "https://a.example" }, "Company name must be a string"],
    [
      { name: "A", slug: "ok", website: "https://a.example", logoUrl: "javascript:alert(1)" },
      "Logo URL must be",
    ],
    [{ name: "A", slug: "ok", website: "https://a.example", owner: "x" }, "unknown field: owner"],
    [{ name: "x".repeat(201), slug: "ok", website: "https://a.example" }, "Company name must be at most 200"],
  ])("bad company %# → 400 naming the field, nothing written", async (fields, message) => {
    const { jar } = await signedInUser();
    const before = await counts();
    const { status, body } = await post({ type: "company", ...fields }, jar);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
    expect(await counts()).toEqual(before);
  });

  it("401 without a session", async () => {
    const { status } = await post({ type: "company", name: "A", slug: "anon", website: "https://a.example" });
    expect(status).toBe(401);
  });
});

describe("GET /api/jobs/companies", () => {
  it("lists the caller's companies only, newest first", async () => {
    const { jar } = await signedInUser();
    const first = await createCompanyAs(jar, { name: "First" });
    clock.advance(1000);
    const second = await createCompanyAs(jar, { name: "Second" });
    await createCompanyAs((await signedInUser()).jar, { name: "Someone else's" });
    const res = await COMPANIES(makeRequest({ path: "/api/jobs/companies", jar }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { companies: CompanyView[] };
    expect(body.companies.map((c) => c.id)).toEqual([second.id, first.id]);
    expect(body.companies[0]).toEqual(second);
  });

  it("401 without a session", async () => {
    expect((await COMPANIES(makeRequest({ path: "/api/jobs/companies" }))).status).toBe(401);
  });
});

describe("POST /api/jobs/board (listing)", () => {
  it("creates a draft with the defaults of the listing table: 201 {job} with its company", async () => {
    const { jar } = await signedInUser();
    const company = await createCompanyAs(jar);
    const { status, body } = await post(listingFields(company.id), jar);
    expect(status).toBe(201);
    const now = clock.now().toISOString();
    expect(body).toEqual({
      job: {
        id: expect.stringMatching(/^lst_[0-9a-z]{20}$/),
        companyId: company.id,
        title: "Senior TypeScript engineer",
        description: "Build the agent platform.",
        salaryMin: 100_000,
        salaryMax: 150_000,
        salaryCurrency: "USD",
        roleType: "backend",
        techStack: [],
        seniority: "senior",
        contractType: "full-time",
        webType: "both",
        applyUrl: "https://acme.example/jobs/1",
        language: "en",
        languagePtBr: null,
        status: "draft",
        tier: "standard",
        viewCount: 0,
        applyCount: 0,
        badgeResponseGuaranteed: false,
        badgeNoAiScreening: false,
        publishedAt: null,
        createdAt: now,
        updatedAt: now,
        company,
      },
    });
  });

  it("takes the optional fields", async () => {
    const { jar } = await signedInUser();
    const company = await createCompanyAs(jar);
    const job = await createListingAs(jar, company.id, {
      salaryCurrency: "EUR",
      techStack: ["typescript", "postgres"],
      webType: "web3",
      language: "pt",
      languagePtBr: "Engenheiro",
      badgeResponseGuaranteed: true,
      badgeNoAiScreening: true,
    });
    expect(job).toMatchObject({
      salaryCurrency: "EUR",
      techStack: ["typescript", "postgres"],
      webType: "web3",
      language: "pt",
      languagePtBr: "Engenheiro",
      badgeResponseGuaranteed: true,
      badgeNoAiScreening: true,
      status: "draft",
    });
  });

  it("403 company not found or not owned, for another user's company and for an unknown one", async () => {
    const owner = await signedInUser();
    const company = await createCompanyAs(owner.jar);
    const { jar } = await signedInUser();
    const before = await counts();
    for (const companyId of [company.id, "cmp_doesnotexist"]) {
      const { status, body } = await post(listingFields(companyId), jar);
      expect(status).toBe(403);
      expect(body).toEqual({ error: "company not found or not owned", code: "company_not_owned" });
    }
    expect(await counts()).toEqual(before);
  });

  it.each([
    [{ salaryMin: 200, salaryMax: 100 }, "Minimum salary must not exceed the maximum salary"],
    [{ salaryMin: 0 }, "Minimum salary must be positive"],
    [{ salaryMax: "100" }, "Maximum salary must be a number"],
    [{ salaryMin: 10.5 }, "Minimum salary must be a whole number"],
    [{ applyUrl: "mailto:jobs@acme.example" }, "Apply URL must be an http(s) URL"],
    [{ applyUrl: "not a url" }, "Apply URL must be an http(s) URL"],
    [{ title: "" }, "Title must not be empty"],
    [{ title: "   " }, "Title must not be empty"],
    [{ description: undefined }, "Description is required"],
    [{ webType: "web4" }, "Web type must be web2, web3 or both"],
    [{ techStack: "ts" }, "Tech stack must be an array of strings"],
    [{ type: "gig" }, 'Type must be "listing" or "company"'],
    [{ status: "active" }, "unknown field: status"],
    [{ viewCount: 99 }, "unknown field: viewCount"],
    [{ description: LONG_DESCRIPTION }, "Description must be at most 20000"],
  ])("bad listing %# → 400 naming the field, nothing written", async (fields, message) => {
    const { jar } = await signedInUser();
    const company = await createCompanyAs(jar);
    const before = await counts();
    const { status, body } = await post(listingFields(company.id, fields), jar);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
    expect(await counts()).toEqual(before);
  });

  it("bad JSON, a non-object, a wrong content type → 400; an oversize body → 413; nothing written", async () => {
    const { jar } = await signedInUser();
    await createCompanyAs(jar);
    const before = await counts();
    const headers = { "content-type": "application/json" };
    expect((await post(undefined, jar, { body: "{not json", headers })).status).toBe(400);
    expect((await post(undefined, jar, { body: "[1,2]", headers })).status).toBe(400);
    expect(
      (await post(undefined, jar, { body: "{}", headers: { "content-type": "text/plain" } })).status,
    ).toBe(400);
    const huge = JSON.stringify({ type: "company", name: "x".repeat(2 * 1024 * 1024) });
    expect((await post(undefined, jar, { body: huge, headers })).status).toBe(413);
    expect(await counts()).toEqual(before);
  });

  it("401 without a session", async () => {
    expect((await post(listingFields("cmp_x"))).status).toBe(401);
  });
});

describe("PATCH /api/jobs/board/{id}", () => {
  it("the first move to active sets publishedAt; closing and re-opening keep it", async () => {
    const { jar } = await signedInUser();
    const draft = await publishedListing(jar, {}, "draft");
    clock.advance(60_000);
    const publishedAt = clock.now().toISOString();
    const res = await setStatusAs(jar, draft.id, "active");
    expect(res.status).toBe(200);
    const { job } = (await res.json()) as { job: ListingView };
    expect(job).toEqual({ ...draft, status: "active", publishedAt, updatedAt: publishedAt });

    clock.advance(60_000);
    const closed = (await (await setStatusAs(jar, draft.id, "closed")).json()) as { job: ListingView };
    expect(closed.job).toMatchObject({ status: "closed", publishedAt, updatedAt: clock.now().toISOString() });
    clock.advance(60_000);
    const reopened = (await (await setStatusAs(jar, draft.id, "active")).json()) as { job: ListingView };
    expect(reopened.job).toMatchObject({ status: "active", publishedAt });
  });

  it("another user's listing, or an unknown id, is 404 and unchanged", async () => {
    const owner = await signedInUser();
    const draft = await publishedListing(owner.jar, {}, "draft");
    const { jar } = await signedInUser();
    for (const id of [draft.id, "lst_unknown"]) {
      const res = await setStatusAs(jar, id, "active");
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "job not found", code: "not_found" });
    }
    const [row] = await db().select().from(jobListings).where(eq(jobListings.id, draft.id));
    expect(row.status).toBe("draft");
    expect(row.publishedAt).toBeNull();
  });

  it("a bad status is 400; no session is 401", async () => {
    const { jar } = await signedInUser();
    const draft = await publishedListing(jar, {}, "draft");
    const bad = await setStatusAs(jar, draft.id, "published");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toContain("Status must be draft, active or closed");
    const anon = await PATCH(
      makeRequest({ method: "PATCH", path: `/api/jobs/board/${draft.id}`, json: { status: "active" } }),
      withParams({ id: draft.id }),
    );
    expect(anon.status).toBe(401);
  });
});

describe("GET /api/jobs/board", () => {
  it("lists active listings with their companies, newest published first, at most 50", async () => {
    const { jar } = await signedInUser();
    const company = await createCompanyAs(jar);
    const ids: string[] = [];
    for (let i = 0; i < 52; i++) {
      const listing = await createListingAs(jar, company.id, { title: `Listing ${i}` });
      clock.advance(1000);
      await setStatusAs(jar, listing.id, "active");
      ids.push(listing.id);
    }
    const { status, body } = await list();
    expect(status).toBe(200);
    expect(body.jobs).toHaveLength(50);
    expect(body.jobs.map((j) => j.id)).toEqual(ids.reverse().slice(0, 50));
    expect(body.jobs[0].company).toEqual(company);
    expect(body.jobs.every((j) => j.status === "active")).toBe(true);
  });

  it("filters by roleType, seniority and webType; searches title and description case-insensitively", async () => {
    const { jar } = await signedInUser();
    const a = await publishedListing(jar, {
      title: "Rust wizard",
      roleType: "frontend-x",
      seniority: "junior-x",
      webType: "web3",
    });
    const b = await publishedListing(jar, {
      description: "We love RUSTACEANS and 100%_literal text",
      roleType: "frontend-x",
      seniority: "senior-x",
      webType: "web2",
    });
    const c = await publishedListing(jar, {
      title: "Go developer",
      roleType: "backend-x",
      seniority: "junior-x",
    });
    const ids = async (q: string) => (await list(q)).body.jobs.map((j) => j.id).sort();
    expect(await ids("?roleType=frontend-x")).toEqual([a.id, b.id].sort());
    expect(await ids("?seniority=junior-x")).toEqual([a.id, c.id].sort());
    expect(await ids("?roleType=frontend-x&webType=web2")).toEqual([b.id]);
    expect(await ids("?search=rUsT")).toEqual([a.id, b.id].sort());
    expect(await ids("?search=rust&seniority=senior-x")).toEqual([b.id]);
    expect(await ids("?search=100%25_lit")).toEqual([b.id]);
    // `%` and `_` are literal characters, not wildcards.
    expect(await ids("?search=R_st")).toEqual([]);
    expect(await ids("?search=%25")).toEqual([b.id]);
    // A term matches inside the title or inside the description, never across the end of one and the start
    // of the other.
    const d = await publishedListing(jar, {
      title: "Seam Cobalt",
      description: "Harbor keeps the seam shut",
    });
    expect(await ids("?search=cobalt")).toEqual([d.id]);
    expect(await ids("?search=harbor%20keeps")).toEqual([d.id]);
    expect(await ids("?search=cobalt%20harbor")).toEqual([]);
    // Letters outside ASCII match as typed, ASCII ones in any case: both sides go through the same lower()
    // (a C-locale database folds ASCII only; a UTF-8 one folds the rest too).
    const e = await publishedListing(jar, { title: "École Ωmega", description: "Ünïcode spoken here" });
    expect(await ids(`?search=${encodeURIComponent("École")}`)).toEqual([e.id]);
    expect(await ids(`?search=${encodeURIComponent("ÜnïCODE SPOKEN")}`)).toEqual([e.id]);
    expect(await ids(`?search=${encodeURIComponent("Ωmega")}`)).toEqual([e.id]);
  });

  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    "on the embedded cluster (builtin C.UTF-8) the search folds case beyond ASCII too",
    async () => {
      const { jar } = await signedInUser();
      const listing = await publishedListing(jar, {
        title: "Ærø Ωmega École",
        description: "Grüße aus Kiel",
      });
      const ids = async (q: string) => (await list(q)).body.jobs.map((j) => j.id);
      for (const term of ["ærø", "ΩMEGA", "école", "GRÜ"]) {
        expect(await ids(`?search=${encodeURIComponent(term)}`), term).toContain(listing.id);
      }
    },
  );

  it("drafts are never public: not listed, filtered or searched for anonymous callers or other users", async () => {
    const owner = await signedInUser();
    const draft = await publishedListing(
      owner.jar,
      { title: "Secret draft zebra", roleType: "secret-role", seniority: "secret-level", webType: "web2" },
      "draft",
    );
    const stranger = await signedInUser();
    for (const jar of [undefined, stranger.jar]) {
      for (const query of [
        "",
        "?status=draft",
        "?status=draft&search=zebra",
        "?search=zebra",
        "?roleType=secret-role",
        "?seniority=secret-level&status=draft",
        "?webType=web2&status=draft",
      ]) {
        const { status, body } = await list(query, jar);
        expect(status).toBe(200);
        expect(body.jobs.map((j) => j.id)).not.toContain(draft.id);
      }
      const readResult = await read(draft.id, jar);
      expect(readResult.status).toBe(404);
      expect(readResult.body).toEqual({ error: "job not found", code: "not_found" });
    }
    // The owner sees its drafts with status=draft, filtered and searched too.
    const own = await list("?status=draft&search=ZEBRA&roleType=secret-role", owner.jar);
    expect(own.body.jobs.map((j) => j.id)).toEqual([draft.id]);
    expect((await read(draft.id, owner.jar)).status).toBe(200);
    const [row] = await db().select().from(jobListings).where(eq(jobListings.id, draft.id));
    expect(row.viewCount).toBe(1);
  });

  it("mine=true lists the caller's own listings of every status, nobody else's; anonymous gets none", async () => {
    const owner = await signedInUser();
    const draft = await publishedListing(owner.jar, { title: "Mine draft" }, "draft");
    const active = await publishedListing(owner.jar, { title: "Mine active" });
    const closed = await publishedListing(owner.jar, { title: "Mine closed" }, "closed");
    const other = await signedInUser();
    await publishedListing(other.jar, { title: "Theirs" });
    const ids = async (query: string, jar?: CookieJar) => (await list(query, jar)).body.jobs.map((j) => j.id);
    expect((await ids("?mine=true", owner.jar)).sort()).toEqual([draft.id, active.id, closed.id].sort());
    expect(await ids("?mine=true&status=closed", owner.jar)).toEqual([closed.id]);
    expect(await ids("?mine=true", other.jar)).not.toContain(draft.id);
    expect(await ids("?mine=true")).toEqual([]);
    expect((await list("?mine=yes", owner.jar)).status).toBe(400);
  });

  it("closed listings are public with status=closed and not in the default list", async () => {
    const { jar } = await signedInUser();
    const closed = await publishedListing(jar, { title: "Closed role" }, "closed");
    expect((await list()).body.jobs.map((j) => j.id)).not.toContain(closed.id);
    expect((await list("?status=closed")).body.jobs.map((j) => j.id)).toContain(closed.id);
    expect((await read(closed.id)).status).toBe(200);
  });

  it("bad query parameters → 400", async () => {
    for (const [query, message] of [
      ["?webType=web4", "Web type must be web2, web3 or both"],
      [`?search=${"x".repeat(201)}`, "Search must be at most 200"],
      ["?search=cobalt%0Aharbor", "Search must not contain control characters"],
      ["?sort=salary", "unknown field: sort"],
    ]) {
      const { status, body } = await list(query);
      expect(status).toBe(400);
      expect(body.error).toContain(message);
    }
  });
});

describe("GET /api/jobs/board/{id}", () => {
  it("answers {job} with its company and counts one view per read, atomically under concurrency", async () => {
    const { jar } = await signedInUser();
    const listing = await publishedListing(jar);
    const first = await read(listing.id);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ job: { ...listing, viewCount: 1 } });
    await Promise.all(Array.from({ length: 20 }, () => read(listing.id)));
    const [row] = await db().select().from(jobListings).where(eq(jobListings.id, listing.id));
    expect(row.viewCount).toBe(21);
    expect(row.updatedAt.toISOString()).toBe(listing.updatedAt);
  });

  it("an unknown id is 404", async () => {
    expect((await read("lst_nothing")).status).toBe(404);
  });
});
