/**
 * The task scheduler's speed, in one run on one embedded PostgreSQL (its own cluster in /dev/shm):
 * 1. backlog: 2,000 tasks due at once, two schedulers (each its own pool, 10 dispatches in flight), a
 *    loopback agent (the one fake agent runtime, in its own worker thread like another machine) answering
 *    each chat completion in 50 ms: every task must be dispatched exactly once; time to drain (both ticks
 *    returned: every task dispatched and its outcome written) and lag from `nextRun` to the agent receiving
 *    the prompt; both schedulers and the agent client warmed up first (100 tasks, 100 direct calls);
 * 2. floor: the same 2,000 chat completions made directly (the same agent client, same token, same body)
 *    with the same concurrency (2 x 10), no scheduler and no database;
 * 3. steady state once the backlog is gone: 100 tasks on 6-field schedules firing every 10 s at staggered
 *    seconds, for BENCH_STEADY_SECONDS (default 30): lag p50/p99 from each occurrence to its dispatch.
 * Knobs: BENCH_TASKS (2000), BENCH_AGENT_MS (50), BENCH_STEADY_SECONDS (30), BENCH_POLL_MS (30000).
 */
import pg from "pg";
import { postChatCompletion } from "../backend/src/chat/gateway";
import { createTaskScheduler, type TaskScheduler } from "../backend/src/scheduled-tasks/scheduler";
import { nextCronRun } from "../common/src/cron";
import { createLogger, sealGatewayToken, wrapperAdminPassword } from "../common/src/index";
import { connectDatabase } from "../drizzle/client";
import { migrateDatabase } from "../drizzle/migrate";
import { startBenchPostgres } from "./lib/postgres";
import { startBenchWorker } from "./lib/workers";

const TASKS = Number(process.env.BENCH_TASKS ?? 2_000);
const AGENT_MS = Number(process.env.BENCH_AGENT_MS ?? 50);
const STEADY_SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 30);
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 30_000);
const PER_SCHEDULER = 10;
const SCHEDULERS = 2;
const TOKEN = "bench-gateway-token";
const DATA_KEY = "be".repeat(32);
const quiet = createLogger("bench", "silent");
const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const fmt = (ms: number) => `${ms.toFixed(0)} ms`;

const { cluster, stop } = await startBenchPostgres("scheduler");
const url = cluster.url();
await migrateDatabase(url);

/** Arrival time (epoch ms) of each prompt at the agent (in its own thread, posted back). */
const arrivals = new Map<string, number[]>();
const { port: agentPort, worker: agentWorker } = await startBenchWorker(
  new URL("./lib/agent-runtime-worker.ts", import.meta.url).href,
  { token: TOKEN, delayMs: AGENT_MS, adminPassword: wrapperAdminPassword(DATA_KEY, "agt_bench", TOKEN) },
);
agentWorker.on("message", ([prompt, at]: [string, number]) => {
  const list = arrivals.get(prompt) ?? [];
  list.push(at);
  arrivals.set(prompt, list);
});
const agent = { url: `http://127.0.0.1:${agentPort}` };
/** Waits (at most 2 s) until `count` prompts starting with `prefix` have been reported by the agent's thread. */
async function arrivalsOf(prefix: string, count: number): Promise<void> {
  const deadline = Date.now() + 2_000;
  while (Date.now() < deadline) {
    let n = 0;
    for (const [prompt, times] of arrivals) if (prompt.startsWith(prefix)) n += times.length;
    if (n >= count) return;
    await new Promise((r) => setTimeout(r, 10));
  }
}

const setup = new pg.Client({ connectionString: url });
await setup.connect();
await setup.query(
  `insert into users (id, email, name, referral_code) values ('usr_bench', 'bench@example.com', 'Bench', 'BENCH1')`,
);
await setup.query(
  `insert into agents (id, user_id, name, url, gateway_token_encrypted, status)
   values ('agt_bench', 'usr_bench', 'Bench', $1, $2, 'running')`,
  [agent.url, sealGatewayToken(DATA_KEY, TOKEN)],
);

function startSchedulers(): { schedulers: TaskScheduler[]; close(): Promise<void> } {
  const handles = Array.from({ length: SCHEDULERS }, () => connectDatabase(url, { max: PER_SCHEDULER + 2 }));
  const schedulers = handles.map((h) =>
    createTaskScheduler({
      pool: h.pool,
      dataEncryptionKey: DATA_KEY,
      logger: quiet,
      pollMs: POLL_MS,
      concurrency: PER_SCHEDULER,
    }),
  );
  for (const s of schedulers) s.start();
  return {
    schedulers,
    async close() {
      await Promise.all(schedulers.map((s) => s.stop()));
      await Promise.all(handles.map((h) => h.close()));
    },
  };
}

// ---------- 1. backlog ----------
// Warm-up (connections, prepared statements, JIT) for the schedulers and for the floor's client alike.
const WARM = 100;
const backlog = startSchedulers();
async function insertTasks(prefix: string, count: number, at: Date) {
  await setup.query(
    `insert into scheduled_tasks (id, user_id, agent_id, name, cron_schedule, prompt, next_run)
     select 'task_' || $1 || '_' || i, 'usr_bench', 'agt_bench', $1 || ' ' || i, '0 0 1 1 *', $1 || ' ' || i, $2
     from generate_series(1, $3) as i`,
    [prefix, at, count],
  );
}
await insertTasks("warm", WARM, new Date());
await Promise.all(backlog.schedulers.map((s) => s.tick()));
const gateway = {
  url: agent.url,
  token: TOKEN,
  identityKey: wrapperAdminPassword(DATA_KEY, "agt_bench", TOKEN),
};
await Promise.all(
  Array.from({ length: WARM }, (_, i) =>
    postChatCompletion(gateway, [{ role: "user", content: `warm-floor ${i}` }]),
  ),
);

const due = new Date();
await insertTasks("backlog", TASKS, due);
const t0 = Date.now();
// What each scheduler's loop runs at its next wake-up, started now: each returns once every task it
// claimed was dispatched and its outcome written.
const reports = await Promise.all(backlog.schedulers.map((s) => s.tick()));
const drainMs = Date.now() - t0;

await backlog.close();
const pending = await setup.query(
  "select count(*)::int as n from scheduled_tasks where name like 'backlog %' and status = 'pending' and next_run > $1",
  [due],
);
await arrivalsOf("backlog ", TASKS);
let once = 0;
const backlogLags: number[] = [];
for (let i = 1; i <= TASKS; i++) {
  const times = arrivals.get(`backlog ${i}`) ?? [];
  if (times.length === 1) once++;
  for (const at of times) backlogLags.push(at - due.getTime());
}
const dispatched = backlogLags.length;
if (process.env.BENCH_DEBUG) {
  const buckets = new Map<number, number>();
  for (const lag of backlogLags)
    buckets.set(Math.floor(lag / 500), (buckets.get(Math.floor(lag / 500)) ?? 0) + 1);
  console.log(
    [...buckets]
      .sort((a, b) => a[0] - b[0])
      .map(([b, n]) => `${b * 0.5}s:${n}`)
      .join(" "),
  );
}

// ---------- 2. floor: the same dispatches made directly ----------
const f0 = Date.now();
let next = 0;
await Promise.all(
  Array.from({ length: SCHEDULERS * PER_SCHEDULER }, async () => {
    while (next < TASKS) {
      const i = ++next;
      const answer = await postChatCompletion(gateway, [{ role: "user", content: `floor ${i}` }]);
      if (answer.status !== 200) throw new Error(`floor dispatch answered ${answer.status}`);
    }
  }),
);
const floorMs = Date.now() - f0;

// ---------- 3. steady state ----------
const STEADY_TASKS = 100;
await setup.query("delete from scheduled_tasks");
const steadyStart = Date.now();
for (let i = 0; i < STEADY_TASKS; i++) {
  const offset = i % 10;
  const cron = `${offset}/10 * * * * *`;
  await setup.query(
    `insert into scheduled_tasks (id, user_id, agent_id, name, cron_schedule, prompt, next_run)
     values ($1, 'usr_bench', 'agt_bench', $1, $2, $3, $4)`,
    [`task_steady_${i}`, cron, `steady ${i} ${offset}`, nextCronRun(cron, new Date(steadyStart))],
  );
}
const steady = startSchedulers();
await new Promise((r) => setTimeout(r, STEADY_SECONDS * 1000));
await steady.close();
await arrivalsOf("steady ", Number.POSITIVE_INFINITY);
const steadyLags: number[] = [];
for (let i = 0; i < STEADY_TASKS; i++) {
  const offset = i % 10;
  for (const at of arrivals.get(`steady ${i} ${offset}`) ?? []) {
    // The occurrence it served: the last second ≡ offset (mod 10) at or before its arrival.
    const second = Math.floor(at / 1000);
    const occurrence = (second - ((((second - offset) % 10) + 10) % 10)) * 1000;
    steadyLags.push(at - occurrence);
  }
}

await setup.end();
await agentWorker.terminate();
await stop();

const ratio = drainMs / floorMs;
console.log(
  `scheduler bench: ${TASKS} tasks, ${SCHEDULERS} schedulers x ${PER_SCHEDULER} in flight, agent ${AGENT_MS} ms`,
);
console.log(
  `  exactly once: ${once}/${TASKS} tasks dispatched once (${dispatched} dispatches; ${pending.rows[0].n} back to pending with their next run; per scheduler ${reports.map((r) => r.dispatched).join(" + ")})`,
);
console.log(
  `  drain ${fmt(drainMs)} | floor (direct, concurrency ${SCHEDULERS * PER_SCHEDULER}) ${fmt(floorMs)} | ratio ${ratio.toFixed(2)}x (goal <= 1.5x)`,
);
console.log(
  `  backlog lag nextRun -> agent: p50 ${fmt(pct(backlogLags, 50))}, p99 ${fmt(pct(backlogLags, 99))}`,
);
console.log(
  `  steady lag (${steadyLags.length} dispatches over ${STEADY_SECONDS} s, ${STEADY_TASKS} tasks every 10 s): p50 ${fmt(pct(steadyLags, 50))}, p99 ${fmt(pct(steadyLags, 99))} (goal p99 < 2000 ms)`,
);
if (once !== TASKS || dispatched !== TASKS || pending.rows[0].n !== TASKS) process.exitCode = 1;
