/**
 * Job queue speed beside graphile-worker 0.17 in the same run, on one embedded PostgreSQL (its own cluster
 * in /dev/shm with fsync off, the same for both):
 * 1. throughput: 20,000 no-op jobs, concurrency 4, from worker start to the last job started; BENCH_ROUNDS
 *    (3) rounds, each measuring both back to back (the order alternates, so a load change on the shared
 *    machine does not always favour the same side); the goal is judged on the median of the rounds'
 *    ratios. Beside each figure, the CPU time per job of the bench process (the worker, the pg client)
 *    and of the PostgreSQL cluster (every backend: /proc of the postmaster's children);
 * 2. enqueue-to-start latency: a trickle of 2,000 jobs at about 200/s into idle workers, p50 and p99;
 * 3. claim latency (ours): p50 of claiming one job, with an empty table and with 1,000,000 finished jobs.
 * Knobs: BENCH_JOBS, BENCH_ROUNDS, BENCH_TRICKLE, BENCH_CONCURRENCY; BENCH_ONLY_THROUGHPUT=1 stops after (1).
 */
import { Logger as GraphileLogger, run as runGraphile } from "graphile-worker";
import pg from "pg";
import {
  claimJobs,
  completeJob,
  databaseClock,
  enqueueJob,
  QUEUE_SESSION_OPTIONS,
  QUEUE_TYPES,
} from "../backend/src/platform-jobs/sql";
import { createJobWorker } from "../backend/src/platform-jobs/worker";
import { createLogger } from "../common/src/index";
import { migrateDatabase } from "../drizzle/migrate";
import { clusterCpuMs, startBenchPostgres } from "./lib/postgres";

const JOBS = Number(process.env.BENCH_JOBS ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const THROUGHPUT_GOAL = 1.25;
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

/**
 * A pool of the bench's own. pg-pool's `end()` resolves before its connections have closed, so one can
 * still be open when the cluster stops and receive its "terminating connection": ignored here, instead of
 * crashing the bench before it removes its cluster.
 */
function benchPool(config: pg.PoolConfig): pg.Pool {
  const pool = new pg.Pool(config);
  pool.on("error", () => undefined);
  return pool;
}

const { cluster, stop } = await startBenchPostgres("queue");
const admin = new pg.Client({ connectionString: cluster.url() });
await admin.connect();
await admin.query("create database bench_ours");
await admin.query("create database bench_graphile");
await admin.end();

interface Throughput {
  jobsPerSecond: number;
  /** CPU per job in µs: this process (worker and pg client), and the PostgreSQL cluster. */
  nodeUs: number;
  postgresUs: number;
}

/** Times `body` (worker start to the last job started) with the CPU both sides spent meanwhile. */
async function timed(body: () => Promise<void>): Promise<Throughput> {
  const cpu = process.cpuUsage();
  const postgres = clusterCpuMs(cluster);
  const t0 = now();
  await body();
  const seconds = (now() - t0) / 1000;
  const used = process.cpuUsage(cpu);
  return {
    jobsPerSecond: JOBS / seconds,
    nodeUs: (used.user + used.system) / JOBS,
    postgresUs: ((clusterCpuMs(cluster) - postgres) * 1000) / JOBS,
  };
}
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
async function oursThroughput(): Promise<Throughput> {
  const pool = benchPool({ connectionString: oursUrl, max: CONCURRENCY + 4 });
  await pool.query("vacuum analyze platform_jobs");
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
  const result = await timed(async () => {
    await worker.start();
    await allStarted;
  });
  await worker.stop();
  const { rows } = await pool.query(
    "select count(*)::int as n from platform_jobs where status = 'completed' and attempts = 1",
  );
  if (rows[0].n !== JOBS) throw new Error(`exactly-once broken: ${rows[0].n} of ${JOBS} completed once`);
  await pool.query("delete from platform_jobs");
  await pool.end();
  return result;
}

/**
 * Enqueue-to-start latencies: TRICKLE jobs tagged t0, t1, …, one every TRICKLE_INTERVAL_MS through
 * `enqueue`, into the idle workers `startWorkers` starts; they call `started(tag)` as each job starts.
 */
async function trickleLatencies(
  startWorkers: (started: (tag: string) => void) => Promise<{ stop(): Promise<void> }>,
  enqueue: (tag: string) => Promise<unknown>,
): Promise<number[]> {
  const enqueuedAt = new Map<string, number>();
  const latencies: number[] = [];
  let finish: () => void = () => undefined;
  const done = new Promise<void>((r) => {
    finish = r;
  });
  const workers = await startWorkers((tag) => {
    latencies.push(now() - (enqueuedAt.get(tag) ?? now()));
    if (latencies.length === TRICKLE) finish();
  });
  for (let i = 0; i < TRICKLE; i++) {
    const tag = `t${i}`;
    enqueuedAt.set(tag, now());
    await enqueue(tag);
    await sleep(TRICKLE_INTERVAL_MS);
  }
  await done;
  await workers.stop();
  return latencies;
}

async function oursLatency(): Promise<number[]> {
  const pool = benchPool({ connectionString: oursUrl, max: CONCURRENCY + 4 });
  const client = benchPool({ connectionString: oursUrl, max: 2 });
  const latencies = await trickleLatencies(
    async (started) => {
      const worker = createJobWorker({
        connectionString: oursUrl,
        processors: {
          gateway_chat_completion: async (job) => {
            started(job.payload.tag as string);
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
      return worker;
    },
    (tag) => enqueueJob(client, databaseClock, { jobType: "gateway_chat_completion", payload: { tag } }),
  );
  await client.end();
  await pool.query("delete from platform_jobs");
  await pool.end();
  return latencies;
}

async function oursClaimLatency(): Promise<number> {
  // The worker's session settings, as the worker's own pool has them.
  const pool = benchPool({
    connectionString: oursUrl,
    max: 2,
    options: QUEUE_SESSION_OPTIONS,
    types: QUEUE_TYPES,
  });
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
  const pool = benchPool({ connectionString: oursUrl, max: 2 });
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

let graphileInstalled = false;

async function graphileThroughput(): Promise<Throughput> {
  const pool = benchPool({ connectionString: graphileUrl, max: CONCURRENCY + 4 });
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
  if (!graphileInstalled) {
    // Install graphile's schema (once), then queue the jobs before any worker runs.
    const setup = await runGraphile({
      pgPool: pool,
      concurrency: 1,
      noHandleSignals: true,
      pollInterval: 60_000,
      // A task (never called: no job exists yet), so its first poll does not trace "No runnable tasks".
      taskList: { noop: async () => undefined },
      logger: graphileLogger,
    });
    await setup.stop();
    graphileInstalled = true;
  }
  await pool.query("vacuum analyze graphile_worker._private_jobs");
  await pool.query("select graphile_worker.add_job('noop', '{}'::json) from generate_series(1, $1)", [JOBS]);
  let runner: Awaited<ReturnType<typeof runGraphile>> | undefined;
  const result = await timed(async () => {
    runner = await runGraphile({
      pgPool: pool,
      concurrency: CONCURRENCY,
      noHandleSignals: true,
      pollInterval: 1_000,
      taskList,
      logger: graphileLogger,
    });
    await allStarted;
  });
  await runner?.stop();
  await pool.end();
  return result;
}

async function graphileLatency(): Promise<number[]> {
  const pool = benchPool({ connectionString: graphileUrl, max: CONCURRENCY + 4 });
  const client = benchPool({ connectionString: graphileUrl, max: 2 });
  const latencies = await trickleLatencies(
    (started) =>
      runGraphile({
        pgPool: pool,
        concurrency: CONCURRENCY,
        noHandleSignals: true,
        pollInterval: 2_000,
        taskList: {
          noop: async (payload: unknown) => started((payload as { tag: string }).tag),
        },
        logger: graphileLogger,
      }),
    (tag) =>
      client.query("select graphile_worker.add_job('noop', json_build_object('tag', $1::text))", [tag]),
  );
  await client.end();
  await pool.end();
  return latencies;
}

try {
  console.log(
    `queue bench: ${JOBS} no-op jobs, concurrency ${CONCURRENCY}; trickle of ${TRICKLE} at ~${1000 / TRICKLE_INTERVAL_MS}/s`,
  );
  const ratios: number[] = [];
  const cpu = (t: Throughput) =>
    `CPU/job ${t.nodeUs.toFixed(0)} µs node + ${t.postgresUs.toFixed(0)} µs PostgreSQL`;
  for (let round = 1; round <= ROUNDS; round++) {
    let ours: Throughput;
    let graphile: Throughput;
    if (round % 2 === 1) {
      graphile = await graphileThroughput();
      ours = await oursThroughput();
    } else {
      ours = await oursThroughput();
      graphile = await graphileThroughput();
    }
    ratios.push(ours.jobsPerSecond / graphile.jobsPerSecond);
    console.log(
      `throughput round ${round}: ours ${ours.jobsPerSecond.toFixed(0)} jobs/s (${cpu(ours)}) vs graphile-worker ` +
        `${graphile.jobsPerSecond.toFixed(0)} jobs/s (${cpu(graphile)}) -> ${ratios.at(-1)?.toFixed(2)}x`,
    );
  }
  const ratio = pct(ratios, 50);
  console.log(
    `throughput: median ratio ${ratio.toFixed(2)}x over ${ROUNDS} rounds (goal >= ${THROUGHPUT_GOAL}x) ${ratio >= THROUGHPUT_GOAL ? "✔" : "✘"}`,
  );
  if (!process.env.BENCH_ONLY_THROUGHPUT) await latencyAndClaims();
} finally {
  await stop();
}

async function latencyAndClaims(): Promise<void> {
  const graphileLat = await graphileLatency();
  const oursLat = await oursLatency();
  const [p50, p99] = [pct(oursLat, 50), pct(oursLat, 99)];
  console.log(
    `enqueue-to-start: ours p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms vs graphile-worker p50 ` +
      `${pct(graphileLat, 50).toFixed(2)} ms, p99 ${pct(graphileLat, 99).toFixed(2)} ms (goal p50 < 5 ms, p99 < 20 ms) ` +
      `${p50 < 5 && p99 < 20 ? "✔" : "✘"}`,
  );
  const emptyClaim = await oursClaimLatency();
  await fillFinished(1_000_000);
  const fullClaim = await oursClaimLatency();
  console.log(
    `claim latency p50: ${emptyClaim.toFixed(3)} ms with no finished jobs vs ${fullClaim.toFixed(3)} ms with 1,000,000 finished -> ` +
      `${(fullClaim / emptyClaim).toFixed(2)}x (goal <= 2x) ${fullClaim / emptyClaim <= 2 ? "✔" : "✘"}`,
  );
}
