/**
 * `GET /api/platform-jobs`'s query (`listUserJobs`: one user's jobs, newest first, keyset-paged), each figure
 * beside its anchor from the same run: the primary-key read of one job (`getJob`), the cheapest statement
 * on the same table. One embedded PostgreSQL 18 cluster in /dev/shm; BENCH_USERS users with BENCH_PER_USER
 * jobs each, plus one heavy user with BENCH_HEAVY jobs; analyzed. One session (prepared statements, as the
 * backend's pool runs them), timed per call, p50/p99 over BENCH_CALLS calls: a normal user's first page, the
 * heavy user's first page, and the heavy user's page 90 % deep (from a cursor); then the same with
 * `plan_cache_mode = force_generic_plan` (the plan a prepared statement settles on).
 */
import pg from "pg";
import { getJob, listUserJobs, type UserJobPosition } from "../backend/src/platform-jobs/sql";
import { migrateDatabase } from "../drizzle/migrate";
import { startBenchPostgres } from "./lib/postgres";

const USERS = Number(process.env.BENCH_USERS ?? 1_000);
const PER_USER = Number(process.env.BENCH_PER_USER ?? 200);
const HEAVY = Number(process.env.BENCH_HEAVY ?? 100_000);
const CALLS = Number(process.env.BENCH_CALLS ?? 2_000);
const PAGE = 20;

const { cluster, stop } = await startBenchPostgres("jobs-list");
try {
  const admin = new pg.Client({ connectionString: cluster.url() });
  await admin.connect();
  await admin.query("create database bench_jobs");
  await admin.end();
  const url = cluster.url("bench_jobs");
  await migrateDatabase(url);
  const pool = new pg.Pool({ connectionString: url, max: 1 });

  const fill = async (userId: string, count: number) =>
    pool.query(
      `insert into platform_jobs (id, user_id, agent_id, lane, job_type, status, priority, attempts, max_attempts,
                                  run_at, payload, created_at, updated_at, completed_at, result)
       select 'job_' || lpad(i::text, 13, '0') || '_' || substr(md5($1 || i), 1, 10), $1, 'agt_bench', 'runtime_exec',
              'gateway_chat_completion', 'completed', 50, 1, 3, t, jsonb_build_object('message', 'hi ' || i), t, t, t,
              jsonb_build_object('reply', 'hello')
         from generate_series(1, $2::int) as i,
              lateral (select timestamptz '2026-01-01' + i * interval '1 second' + (random() * 1000) * interval '1 microsecond' as t) as c`,
      [userId, count],
    );
  const started = Date.now();
  for (let u = 0; u < USERS; u++) await fill(`usr_bench_${u}`, PER_USER);
  await fill("usr_heavy", HEAVY);
  await pool.query("analyze platform_jobs");
  const total = USERS * PER_USER + HEAVY;
  console.log(`filled ${total.toLocaleString()} jobs in ${((Date.now() - started) / 1000).toFixed(1)} s`);

  // The heavy user's position 90 % deep, as a cursor would carry it.
  const deep = await pool.query(
    `select id, (extract(epoch from created_at) * 1000000)::bigint::text as micros from platform_jobs
      where user_id = 'usr_heavy' order by created_at desc, id desc offset $1 limit 1`,
    [Math.floor(HEAVY * 0.9)],
  );
  const deepAt: UserJobPosition = { createdAtMicros: BigInt(deep.rows[0].micros), id: deep.rows[0].id };
  const anyIds = (await pool.query("select id from platform_jobs order by random() limit 500")).rows.map(
    (r) => r.id as string,
  );

  const time = async (run: (i: number) => Promise<unknown>) => {
    for (let i = 0; i < 50; i++) await run(i); // warm: plans cached, pages in memory
    const times = new Float64Array(CALLS);
    for (let i = 0; i < CALLS; i++) {
      const t0 = process.hrtime.bigint();
      await run(i);
      times[i] = Number(process.hrtime.bigint() - t0) / 1e6;
    }
    times.sort();
    return { p50: times[Math.floor(CALLS / 2)], p99: times[Math.floor(CALLS * 0.99)] };
  };
  const ms = (x: number) => `${x.toFixed(3)} ms`;
  const rows: string[] = [];
  for (const mode of ["auto", "force_generic_plan"]) {
    await pool.query(`set plan_cache_mode = ${mode}`);
    const anchor = await time((i) => getJob(pool, anyIds[i % anyIds.length]));
    const cases: Array<[string, (i: number) => Promise<unknown>]> = [
      [
        "normal user, first page",
        (i) => listUserJobs(pool, { userId: `usr_bench_${i % USERS}`, limit: PAGE + 1 }),
      ],
      ["heavy user, first page", () => listUserJobs(pool, { userId: "usr_heavy", limit: PAGE + 1 })],
      [
        "heavy user, page 90 % deep",
        () => listUserJobs(pool, { userId: "usr_heavy", after: deepAt, limit: PAGE + 1 }),
      ],
    ];
    for (const [name, run] of cases) {
      const ours = await time(run);
      rows.push(
        `| ${mode} | ${name} | p50 ${ms(ours.p50)}, p99 ${ms(ours.p99)} | getJob p50 ${ms(anchor.p50)}, p99 ${ms(anchor.p99)} | **${(ours.p50 / anchor.p50).toFixed(2)}x** |`,
      );
    }
  }
  const pages = await listUserJobs(pool, { userId: "usr_heavy", after: deepAt, limit: PAGE + 1 });
  if (pages.length !== PAGE + 1) throw new Error(`the deep page has ${pages.length} rows`);
  console.log("| plan cache | query | ours | anchor | ratio |\n|---|---|---|---|---|");
  console.log(rows.join("\n"));
  await pool.end();
} finally {
  await stop();
}
