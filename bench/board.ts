/**
 * Job board list speed: `GET /api/jobs/board` over HTTP with 100,000 listings (80 % active), each filter
 * and a search term, p50/p99 of sequential keep-alive requests. Anchor in the same run: the same requests
 * against a copy of the database without the pg_trgm GIN index.
 *
 * The server is a node:http adapter in front of the route's own steps (query schema, `listListings`,
 * JSON); an anonymous caller has no session to look up. One embedded PostgreSQL cluster in /dev/shm.
 * Knobs: BENCH_LISTINGS (100000), BENCH_SAMPLES (300), BENCH_UNINDEXED_SAMPLES (60).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type SQL, sql } from "drizzle-orm";
import pg from "pg";
import { systemClock } from "../common/src/index";
import { connectDatabase } from "../drizzle/client";
import { migrateDatabase } from "../drizzle/migrate";
import { listBoardQuery } from "../web/lib/board/inputs";
import { listListings } from "../web/lib/board/service";
import { parseWith } from "../web/lib/infra/http/body";
import { startBenchPostgres } from "./lib/postgres";

const LISTINGS = Number(process.env.BENCH_LISTINGS ?? 100_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const UNINDEXED_SAMPLES = Number(process.env.BENCH_UNINDEXED_SAMPLES ?? 60);
const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

// A vocabulary like job ads': real stack words among many ordinary ones; "typescript" lands in about one
// description in six; "kubernetes", "terraform" and "elixir" are added to 0.3 %, 1 % and 3 % of them.
const stack = [
  "typescript",
  "react",
  "node",
  "postgres",
  "python",
  "golang",
  "solidity",
  "aws",
  "docker",
  "graphql",
];
const syllables = [
  "ka",
  "lo",
  "mi",
  "ne",
  "ra",
  "su",
  "te",
  "vo",
  "zan",
  "pel",
  "dor",
  "fin",
  "gat",
  "hum",
  "jex",
];
const ordinary = Array.from({ length: 450 }, (_, i) => {
  const a = syllables[i % 15];
  const b = syllables[Math.floor(i / 15) % 15];
  const c = syllables[Math.floor(i / 225) % 15];
  return `${a}${b}${c}`;
});
const vocabulary = [...stack, ...ordinary];

const { cluster, stop } = await startBenchPostgres("board");
try {
  const admin = new pg.Client({ connectionString: cluster.url() });
  admin.on("error", () => undefined);
  await admin.connect();
  await admin.query("create database bench_board");
  const indexedUrl = cluster.url("bench_board");
  await migrateDatabase(indexedUrl);

  const seedStarted = now();
  const seed = new pg.Client({ connectionString: indexedUrl });
  await seed.connect();
  await seed.query(
    `insert into companies (id, name, slug, website)
     select 'cmp_' || c, 'Company ' || c, 'company-' || c, 'https://company' || c || '.example'
     from generate_series(0, 999) as c`,
  );
  await seed.query(
    `insert into job_listings (id, company_id, title, description, salary_min, salary_max, role_type, seniority,
       contract_type, web_type, apply_url, status, published_at, created_at, updated_at)
     select 'lst_' || i, 'cmp_' || (i % 1000),
       (array['Junior','Mid','Senior','Lead'])[1 + (i / 7) % 4] || ' ' ||
         (array['Frontend','Backend','Fullstack','DevOps','Data'])[1 + i % 5] || ' Engineer ' || i,
       (select string_agg(($1::text[])[1 + floor(random() * cardinality($1::text[]))::int], ' ')
          from generate_series(1, 80) as w where w > 0 * i)
         || case when i % 333 = 0 then ' kubernetes operator' else '' end
         || case when i % 100 = 7 then ' terraform' else '' end
         || case when i % 33 = 5 then ' elixir' else '' end,
       50000 + (i % 50) * 1000, 90000 + (i % 50) * 1000,
       case when i % 1000 = 3 then 'blockchain' else (array['frontend','backend','fullstack','devops','data'])[1 + i % 5] end,
       (array['junior','mid','senior','lead'])[1 + (i / 7) % 4],
       'full-time',
       (array['web2','web3','both'])[1 + (i / 3) % 3],
       'https://jobs.example/' || i,
       case when i % 10 < 8 then 'active' when i % 10 = 8 then 'draft' else 'closed' end,
       case when i % 10 = 8 then null else now() - i * interval '1 minute' end,
       now() - i * interval '1 minute', now() - i * interval '1 minute'
     from generate_series(1, $2::int) as i`,
    [vocabulary, LISTINGS],
  );
  await seed.query("vacuum analyze job_listings");
  await seed.query("vacuum analyze companies");
  const { rows: sizes } = await seed.query<{ table: string; trgm: string }>(
    `select pg_size_pretty(pg_table_size('job_listings')) as table,
            pg_size_pretty(pg_relation_size('job_listings_search_text_trgm_idx')) as trgm`,
  );
  await seed.end();
  console.log(
    `seeded ${LISTINGS.toLocaleString()} listings (80 % active) in ${((now() - seedStarted) / 1000).toFixed(1)} s; table ${sizes[0].table}, trigram index ${sizes[0].trgm}`,
  );

  // The anchor: the same data without the trigram indexes.
  await admin.query("create database bench_board_unindexed template bench_board");
  const unindexedUrl = cluster.url("bench_board_unindexed");
  const drop = new pg.Client({ connectionString: unindexedUrl });
  await drop.connect();
  await drop.query("drop index job_listings_search_text_trgm_idx");
  await drop.query("analyze job_listings");
  await drop.end();
  await admin.end();

  const indexed = connectDatabase(indexedUrl, { applicationName: "bench-board" });
  const unindexed = connectDatabase(unindexedUrl, { applicationName: "bench-board-unindexed" });
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? "/", "http://bench");
      const handle = url.pathname.startsWith("/unindexed") ? unindexed : indexed;
      const query = parseWith(listBoardQuery, Object.fromEntries(url.searchParams));
      const jobs = await listListings({ db: handle.db, clock: systemClock }, undefined, query);
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ jobs }));
    } catch (err) {
      res.writeHead(500).end(String(err));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  async function measure(
    path: string,
    samples: number,
  ): Promise<{ p50: number; p99: number; count: number }> {
    const times: number[] = [];
    let count = 0;
    for (let i = 0; i < samples + 10; i++) {
      const t0 = now();
      const res = await fetch(`${base}${path}`);
      const body = (await res.json()) as { jobs: unknown[] };
      if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
      if (i >= 10) times.push(now() - t0);
      count = body.jobs.length;
    }
    return { p50: pct(times, 50), p99: pct(times, 99), count };
  }

  const cases: [string, string, boolean][] = [
    ["default (active)", "", false],
    ["roleType=frontend", "?roleType=frontend", false],
    ["seniority=senior", "?seniority=senior", false],
    ["webType=web3", "?webType=web3", false],
    ["all three filters", "?roleType=data&seniority=lead&webType=web2", false],
    ["roleType=blockchain (0.1 %)", "?roleType=blockchain", false],
    ["roleType=nobody (no match)", "?roleType=nobody", false],
    ["seniority=principal (no match)", "?seniority=principal", false],
    ["status=closed", "?status=closed", false],
    ["search=kubernetes (0.3 %)", "?search=kubernetes", true],
    ["search=terraform (1 %)", "?search=terraform", true],
    ["search=elixir (3 %)", "?search=elixir", true],
    ["search=typescript (~16 %)", "?search=typescript", true],
    ["search=kubernetes&roleType=backend", "?search=kubernetes&roleType=backend", true],
    ["search=elixir&roleType=blockchain", "?search=elixir&roleType=blockchain", true],
    ["search=zzqx (no match)", "?search=zzqx", true],
  ];
  const fmt = (n: number) => n.toFixed(2).padStart(8);
  console.log(
    `\n${"query".padEnd(36)} ${"rows".padStart(4)} ${"p50 ms".padStart(8)} ${"p99 ms".padStart(8)} | ${"no-trgm p50".padStart(11)} ${"p99".padStart(8)} | p50 ratio`,
  );
  if (process.env.BENCH_EXPLAIN) {
    const { containsPattern, matchStatement, SEARCH_CONTINUE_MAX, SEARCH_WINDOW, walkStatement } =
      await import("../web/lib/board/search");
    const { listingFilters } = await import("../web/lib/board/service");
    for (const [label, query, search] of cases) {
      if (!search) continue;
      const params = parseWith(listBoardQuery, Object.fromEntries(new URLSearchParams(query)));
      const filters = listingFilters(undefined, params);
      if (!filters || !params.search) continue;
      const pattern = containsPattern(params.search);
      const statements: [string, SQL][] = [
        ["first window", walkStatement(filters, pattern, { offset: 0, rows: SEARCH_WINDOW, wanted: 50 })],
        [
          "longest walk on",
          walkStatement(filters, pattern, { offset: SEARCH_WINDOW, rows: SEARCH_CONTINUE_MAX, wanted: 50 }),
        ],
        ["trigram index", matchStatement(filters, pattern)],
      ];
      for (const [name, statement] of statements) {
        const plan = await indexed.db.execute<{ "QUERY PLAN": string }>(
          sql`explain (analyze, costs off) ${statement}`,
        );
        console.log(`-- ${label} (${name})\n${plan.rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
      }
    }
  }
  for (const [label, query, search] of cases) {
    const ours = await measure(`/api/jobs/board${query}`, SAMPLES);
    let anchor = "";
    if (search) {
      const without = await measure(`/unindexed/api/jobs/board${query}`, UNINDEXED_SAMPLES);
      if (without.count !== ours.count)
        throw new Error(`${label}: ${ours.count} rows vs ${without.count} unindexed`);
      anchor = `| ${fmt(without.p50).padStart(11)} ${fmt(without.p99)} | ${(without.p50 / ours.p50).toFixed(1)}x`;
    }
    console.log(
      `${label.padEnd(36)} ${String(ours.count).padStart(4)} ${fmt(ours.p50)} ${fmt(ours.p99)} ${anchor}`,
    );
  }
  server.close();
  await indexed.close();
  await unindexed.close();
} catch (err) {
  console.error(err);
  process.exitCode = 1;
} finally {
  await stop();
}
