/**
 * Job queue speed beside graphile-worker 0.17 in the same run, on one embedded PostgreSQL (its own cluster
 * in /dev/shm with fsync off, the same for both):
 * 1. throughput: 20,000 no-op jobs, concurrency 4, from worker start to the last job started;
 * 2. enqueue-to-start latency: a trickle of 2,000 jobs at about 200/s into idle workers, p50 and p99;
 * 3. claim latency (ours): p50 of claiming one job, with an empty table and with 1,000,000 finished jobs.
 * Knobs: BENCH_JOBS, BENCH_TRICKLE, BENCH_CONCURRENCY; BENCH_ONLY_THROUGHPUT=1 stops after (1).
 */
import { Logger as GraphileLogger, run as runGraphile } from "graphile-worker";
import pg from "pg";
import {
  claimJobs,
  completeJob,
  databaseClock,
  enqueueJob,
  QUEUE_SESSION_OPTIONS,
} from "../backend/src/jobs/sql";
import { createJobWorker } from "../backend/src/jobs/worker";
import { createLogger } from "../common/src/index";
import { migrateDatabase } from "../drizzle/migrate";
import { startBenchPostgres } from "./lib/postgres";

const JOBS = Number(process.env.BENCH_JOBS ?? 20_000);
const TRICKLE = Number(process.env.BENCH_TRICKLE ?? 2_000);
const TRICKLE_INTERVAL_MS = 5;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const now = () => Number(process.hrtime.bigint()) / 1e6;
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const quiet = createLogger("bench", "silent");

const { cluster, stop } = await startBenchPostgres("queue");
const admin = new pg.Client({ connectionString: cluster.url() });
await admin.connect();
await admin.query("create database bench_ours");
await admin.query("create database bench_graphile");
await admin.end();
const oursUrl = cluster.url("bench_ours");
const graphileUrl = cluster.url("bench_graphile");
await migrateDatabase(oursUrl);
if (process.env.DROP_IDX) {
  const c = new pg.Client({ connectionString: oursUrl });
  await c.connect();
  for (const i of process.env.DROP_IDX.split(",")) await c.query(`drop index ${i}`);
  await c.end();
}

// ---------- ours ----------
async function oursThroughput(): Promise<number> {
  const pool = new pg.Pool({ connectionString: oursUrl, max: CONCURRENCY + 4 });
  await pool.query(
    `insert into platform_jobs (id, lane, job_type, priority, max_attempts, payload)
     select 'job_' || (1700000000000 + i) || '_' || lpad(i::text, 10, '0'), 'runtime_exec', 'gateway_chat_completion', 50, 3, '{}'::jsonb
     from generate_series(1, $1) as i`,
    [JOBS],
  );
  let started = 0;
  let finish: () => void = () => undefined;
  const allStarted = new Promise<void>((r) => {
    finish = r;
  });
  const worker = createJobWorker({
    connectionString: oursUrl,
    processors: {
      gateway_chat_completion: async () => {
        if (++started === JOBS) finish();
        return {};
      },
    },
    logger: quiet,
    concurrency: CONCURRENCY,
    pollIntervalMs: 1_000,
    staleAfterMs: 600_000,
    shutdownGraceMs: 5_000,
  });
  const t0 = now();
  await worker.start();
  await allStarted;
  const seconds = (now() - t0) / 1000;
  await worker.stop();
  const { rows } = await pool.query(
    "select count(*)::int as n from platform_jobs where status = 'completed' and attempts = 1",
  );
  if (rows[0].n !== JOBS) throw new Error(`exactly-once broken: ${rows[0].n} of ${JOBS} completed once`);
  await pool.query("delete from platform_jobs");
  await pool.end();
  return JOBS / seconds;
}

async function oursLatency(): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: oursUrl, max: CONCURRENCY + 4 });
  const enqueuedAt = new Map<string, number>();
  const latencies: number[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    finish = r;
  });
  const worker = createJobWorker({
    connectionString: oursUrl,
    processors: {
      gateway_chat_completion: async (job) => {
        latencies.push(now() - (enqueuedAt.get(job.payload.tag as string) ?? now()));
        if (latencies.length === TRICKLE) finish();
        return {};
      },
    },
    logger: quiet,
    concurrency: CONCURRENCY,
    pollIntervalMs: 2_000,
    staleAfterMs: 600_000,
    shutdownGraceMs: 5_000,
  });
  await worker.start();
  const client = new pg.Pool({ connectionString: oursUrl, max: 2 });
  for (let i = 0; i < TRICKLE; i++) {
    const tag = `t${i}`;
    enqueuedAt.set(tag, now());
    await enqueueJob(client, databaseClock, { jobType: "gateway_chat_completion", payload: { tag } });
    await sleep(TRICKLE_INTERVAL_MS);
  }
  await done;
  await worker.stop();
  await client.end();
  await pool.query("delete from platform_jobs");
  await pool.end();
  return latencies;
}

async function oursClaimLatency(): Promise<number> {
  // The worker's session settings, as the worker's own pool has them.
  const pool = new pg.Pool({ connectionString: oursUrl, max: 2, options: QUEUE_SESSION_OPTIONS });
  const samples: number[] = [];
  for (let i = 0; i < 600; i++) {
    await enqueueJob(pool, databaseClock, { jobType: "gateway_chat_completion", payload: {} });
    const t0 = now();
    const [claim] = await claimJobs(pool, databaseClock, 1);
    samples.push(now() - t0);
    await completeJob(pool, databaseClock, { id: claim.job.id, lockToken: claim.lockToken }, {});
  }
  await pool.end();
  return pct(samples.slice(100), 50);
}

async function fillFinished(count: number): Promise<void> {
  const pool = new pg.Pool({ connectionString: oursUrl, max: 2 });
  await pool.query(
    `insert into platform_jobs (id, lane, job_type, status, priority, attempts, max_attempts, payload, result,
                                started_at, completed_at, created_at, updated_at)
     select 'job_' || (1600000000000 + i) || '_' || lpad(i::text, 10, '0'), 'runtime_exec', 'gateway_chat_completion',
            'completed', 50, 1, 3, '{}'::jsonb, '{}'::jsonb, now(), now(), now(), now()
     from generate_series(1, $1) as i`,
    [count],
  );
  await pool.query("vacuum analyze platform_jobs");
  await pool.end();
}

// ---------- graphile-worker ----------
const graphileLogger = new GraphileLogger(() => () => undefined);

async function graphileThroughput(): Promise<number> {
  const pool = new pg.Pool({ connectionString: graphileUrl, max: CONCURRENCY + 4 });
  pool.on("error", () => undefined);
  let started = 0;
  let finish: () => void = () => undefined;
  const allStarted = new Promise<void>((r) => {
    finish = r;
  });
  const taskList = {
    noop: async () => {
      if (++started === JOBS) finish();
    },
  };
  // Install graphile's schema, then queue the jobs before any worker runs.
  const setup = await runGraphile({
    pgPool: pool,
    concurrency: 1,
    noHandleSignals: true,
    pollInterval: 60_000,
    taskList: {},
    logger: graphileLogger,
  });
  await setup.stop();
  await pool.query("select graphile_worker.add_job('noop', '{}'::json) from generate_series(1, $1)", [JOBS]);
  const t0 = now();
  const runner = await runGraphile({
    pgPool: pool,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    pollInterval: 1_000,
    taskList,
    logger: graphileLogger,
  });
  await allStarted;
  const seconds = (now() - t0) / 1000;
  await runner.stop();
  await pool.end();
  return JOBS / seconds;
}

async function graphileLatency(): Promise<number[]> {
  const pool = new pg.Pool({ connectionString: graphileUrl, max: CONCURRENCY + 4 });
  pool.on("error", () => undefined);
  const enqueuedAt = new Map<string, number>();
  const latencies: number[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    finish = r;
  });
  const taskList = {
    noop: async (payload: unknown) => {
      latencies.push(now() - (enqueuedAt.get((payload as { tag: string }).tag) ?? now()));
      if (latencies.length === TRICKLE) finish();
    },
  };
  const runner = await runGraphile({
    pgPool: pool,
    concurrency: CONCURRENCY,
    noHandleSignals: true,
    pollInterval: 2_000,
    taskList,
    logger: graphileLogger,
  });
  const client = new pg.Pool({ connectionString: graphileUrl, max: 2 });
  for (let i = 0; i < TRICKLE; i++) {
    const tag = `t${i}`;
    enqueuedAt.set(tag, now());
    await client.query("select graphile_worker.add_job('noop', json_build_object('tag', $1::text))", [tag]);
    await sleep(TRICKLE_INTERVAL_MS);
  }
  await done;
  await runner.stop();
  await client.end();
  await pool.end();
  return latencies;
}

try {
  console.log(
    `queue bench: ${JOBS} no-op jobs, concurrency ${CONCURRENCY}; trickle of ${TRICKLE} at ~${1000 / TRICKLE_INTERVAL_MS}/s`,
  );
  const graphileJps = await graphileThroughput();
  const oursJps = await oursThroughput();
  console.log(
    `throughput: ours ${oursJps.toFixed(0)} jobs/s vs graphile-worker ${graphileJps.toFixed(0)} jobs/s -> ${(oursJps / graphileJps).toFixed(2)}x (goal >= 1.0x)`,
  );
  if (process.env.BENCH_ONLY_THROUGHPUT) process.exit(0);
  const graphileLat = await graphileLatency();
  const oursLat = await oursLatency();
  console.log(
    `enqueue-to-start: ours p50 ${pct(oursLat, 50).toFixed(2)} ms, p99 ${pct(oursLat, 99).toFixed(2)} ms vs graphile-worker p50 ` +
      `${pct(graphileLat, 50).toFixed(2)} ms, p99 ${pct(graphileLat, 99).toFixed(2)} ms (goal p50 < 5 ms, p99 < 20 ms)`,
  );
  const emptyClaim = await oursClaimLatency();
  await fillFinished(1_000_000);
  const fullClaim = await oursClaimLatency();
  console.log(
    `claim latency p50: ${emptyClaim.toFixed(3)} ms with no finished jobs vs ${fullClaim.toFixed(3)} ms with 1,000,000 finished -> ` +
      `${(fullClaim / emptyClaim).toFixed(2)}x (goal <= 2x)`,
  );
} finally {
  await stop();
}
