import { type SQL, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { useWebTestContext, webContext } from "../infra/testing";
import { listBoardQuery } from "./inputs";
import {
  containsPattern,
  continueRows,
  matchStatement,
  SEARCH_CONTINUE_MAX,
  SEARCH_WINDOW,
  searchListingIds,
  walkStatement,
} from "./search";
import { listingFilters, listListings } from "./service";

useWebTestContext();

// 20,000 active listings with descriptions of listing length (~800 chars), newest first by i. Terms: one in
// five listings (a rare term: the index), one in 30 (3 %: the walk goes on after the window), one in 100
// (1 %: the index after the window), and one dense among the newest 1,000 and rare after them (the walk
// goes on, misses, and the index answers).
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
      || case when i % 4000 = 0 then ' kubernetes-wrangler' else '' end
      || case when i % 30 = 0 then ' elixir-dev' else '' end
      || case when i % 100 = 0 then ' terraform-ops' else '' end
      || case when (i <= 1000 and i % 33 = 0) or i % 5000 = 0 then ' clustered-term' else '' end,
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
    order by published_at desc nulls first, created_at desc, id desc limit 50`);
  return result.rows.map((row) => row.id);
}

describe("GET /api/jobs/board?search=", () => {
  it("a rare term is answered from the pg_trgm GIN index of the search text, not a walk over the listings", async () => {
    const plan = await planOf(matchStatement(activeFilters(), containsPattern("Kubernetes-Wrangler")));
    expect(plan).toContain("Bitmap Index Scan on job_listings_search_text_trgm_idx");
    expect(plan).not.toContain("Seq Scan on job_listings");
  });

  it("the walk reads only the newest listings, in the order of the status index, without sorting them", async () => {
    for (const offset of [0, SEARCH_WINDOW]) {
      const plan = await planOf(
        walkStatement(activeFilters(), containsPattern("engineer"), { offset, rows: 1000, wanted: 50 }),
      );
      expect(plan).toContain("Index Scan using job_listings_status_published_at_idx on job_listings");
      expect(plan).not.toContain("Seq Scan on job_listings");
      // Only the incremental sort of equal publishedAt by createdAt and id: nothing reads the whole window.
      expect(plan.split("\n").filter((line) => /^(->\s+)?Sort {2}/.test(line.trim()))).toEqual([]);
    }
    expect(SEARCH_WINDOW).toBeLessThan(20_000);
  });

  it("a rare or unknown roleType or seniority reads its own index, not every listing of the status", async () => {
    for (const [query, index] of [
      [{ roleType: "nobody" }, "job_listings_status_role_type_published_at_idx"],
      [{ seniority: "principal" }, "job_listings_status_seniority_published_at_idx"],
    ] as const) {
      const filters = listingFilters(undefined, listBoardQuery.parse(query)) as SQL;
      // The list as listListings reads it (its order and limit), and the search's walk.
      const list = await planOf(sql`
        select job_listings.id from job_listings inner join companies on companies.id = job_listings.company_id
        where ${filters} order by published_at desc nulls first, job_listings.created_at desc, job_listings.id desc
        limit 50`);
      const walk = await planOf(
        walkStatement(filters, containsPattern("engineer"), { offset: 0, rows: 1000, wanted: 50 }),
      );
      for (const plan of [list, walk]) {
        expect(plan).toContain(index);
        expect(plan).not.toContain("job_listings_status_published_at_idx");
      }
    }
  });

  it("goes on walking when the first window shows a common term, and takes the index for a rare one", () => {
    // 30 matches in 1,000: 667 more rows to read, against 3,000 matches in 100,000 rows by the index.
    expect(continueRows(30, 100_000)).toBe(2 * 667);
    // 10 in 1,000: 4,000 more rows, against 1,000 matches by the index.
    expect(continueRows(10, 100_000)).toBeNull();
    expect(continueRows(0, 100_000)).toBeNull();
    // A table never analyzed (reltuples -1): the index.
    expect(continueRows(30, -1)).toBeNull();
    // The walk never goes on for more than SEARCH_CONTINUE_MAX rows.
    expect(continueRows(45, 10_000_000)).toBeLessThanOrEqual(SEARCH_CONTINUE_MAX);
  });

  it("answers the newest 50 matches whether they lie in the first window (common term) or beyond it (rare term)", async () => {
    const ctx = webContext();
    for (const term of [
      "engineer",
      "kubernetes-wrangler",
      "ENGINEER",
      "no-such-term-anywhere",
      "elixir-dev",
      "terraform-ops",
      "clustered-term",
    ]) {
      const expected = await expectedIds(term);
      expect(await searchListingIds(ctx.db, activeFilters(), term)).toEqual(expected);
      const listed = await listListings(ctx, undefined, listBoardQuery.parse({ search: term }));
      expect(listed.map((listing) => listing.id)).toEqual(expected);
    }
    expect(await expectedIds("kubernetes-wrangler")).toHaveLength(5);
    expect(await expectedIds("engineer")).toHaveLength(50);
    expect(await expectedIds("elixir-dev")).toHaveLength(50);
    expect(await expectedIds("clustered-term")).toHaveLength(34);
  });
});
