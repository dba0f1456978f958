import { sql } from "drizzle-orm";
import type { Pool } from "pg";
import { beforeAll, describe, expect, it } from "vitest";
import { useWebTestContext, webContext } from "../testing";
import { listBoardQuery } from "./schema";
import { listListingsQuery } from "./service";

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

async function planOf(search: string): Promise<string> {
  const { db } = webContext();
  const query = listListingsQuery(db, undefined, listBoardQuery.parse({ search }));
  if (!query) throw new Error("no query");
  const { sql: text, params } = query.toSQL();
  const pool = (db as unknown as { $client: Pool }).$client;
  const result = await pool.query(`explain ${text}`, params);
  return result.rows.map((row: { "QUERY PLAN": string }) => row["QUERY PLAN"]).join("\n");
}

describe("GET /api/jobs/board?search=", () => {
  it("is answered from the pg_trgm GIN indexes of title and description, not a walk over the listings", async () => {
    const plan = await planOf("kubernetes-wrangler");
    expect(plan).toContain("Bitmap Index Scan on job_listings_title_trgm_idx");
    expect(plan).toContain("Bitmap Index Scan on job_listings_description_trgm_idx");
    expect(plan).not.toContain("Seq Scan on job_listings");
  });
});
