import { type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useWebTestContext, webContext } from "../testing";
import { listBoardQuery } from "./schema";
import { containsPattern, matchStatement, SEARCH_WINDOW, searchListingIds, windowStatement } from "./search";
import { listingFilters, listListings } from "./service";

useWebTestContext();

// 20,000 active listings with descriptions of listing length (~800 chars); five carry the searched word.
beforeAll(async () => {
  const { db } = webContext();
  await db.execute(
    sql`insert into users (id, email, name, referral_code) values ('usr_plan', 'plan@example.com', 'Plan', 'PLAN1')`,
  );
  await db.execute(sql`insert into companies (id, advertiser_id, name, slug, website)
    values ('cmp_plan', 'usr_plan', 'Plan', 'plan', 'https://plan.example')`);
  await db.execute(sql`
    insert into job_listings (id, company_id, title, description, salary_min, salary_max, role_type, seniority,
      contract_type, apply_url, status, published_at)
    select 'lst_' || i, 'cmp_plan', md5(i::text) || ' engineer', repeat(md5((i * 7)::text) || ' ' || md5((i * 13)::text) || ' ', 12)
      || case when i % 4000 = 0 then ' kubernetes-wrangler' else '' end,
      1, 2, 'backend', 'senior', 'full-time', 'https://plan.example', 'active', now() - i * interval '1 minute'
    from generate_series(1, 20000) as i`);
  await db.execute(sql`analyze job_listings`);
});

async function planOf(statement: SQL): Promise<string> {
  const result = await webContext().db.execute<{ "QUERY PLAN": string }>(sql`explain ${statement}`);
  return result.rows.map((row) => row["QUERY PLAN"]).join("\n");
}
const activeFilters = () => listingFilters(undefined, listBoardQuery.parse({})) as SQL;

/** What the search must answer: every match, newest first, at most 50 (a plain query, no strategy). */
async function expectedIds(term: string): Promise<string[]> {
  const result = await webContext().db.execute<{ id: string }>(sql`
    select id from job_listings where status = 'active' and (title ilike ${containsPattern(term)} or description ilike ${containsPattern(term)})
    order by published_at desc nulls first, created_at desc limit 50`);
  return result.rows.map((row) => row.id);
}

describe("GET /api/jobs/board?search=", () => {
  it("a rare term is answered from the pg_trgm GIN index of the search text, not a walk over the listings", async () => {
    const plan = await planOf(matchStatement(activeFilters(), containsPattern("Kubernetes-Wrangler")));
    expect(plan).toContain("Bitmap Index Scan on job_listings_search_text_trgm_idx");
    expect(plan).not.toContain("Seq Scan on job_listings");
  });

  it("the first look reads only the newest listings, in the order of the status index", async () => {
    const plan = await planOf(windowStatement(activeFilters(), containsPattern("engineer")));
    expect(plan).toContain("Index Scan using job_listings_status_published_at_idx on job_listings");
    expect(plan).not.toContain("Seq Scan on job_listings");
    expect(SEARCH_WINDOW).toBeLessThan(20_000);
  });

  it("answers the newest 50 matches whether they lie in the first window (common term) or beyond it (rare term)", async () => {
    const ctx = webContext();
    for (const term of ["engineer", "kubernetes-wrangler", "ENGINEER", "no-such-term-anywhere"]) {
      const expected = await expectedIds(term);
      expect(await searchListingIds(ctx.db, activeFilters(), term)).toEqual(expected);
      const listed = await listListings(ctx, undefined, listBoardQuery.parse({ search: term }));
      expect(listed.map((listing) => listing.id)).toEqual(expected);
    }
    expect(await expectedIds("kubernetes-wrangler")).toHaveLength(5);
    expect(await expectedIds("engineer")).toHaveLength(50);
  });
});
