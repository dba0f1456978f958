/**
 * Tool-call classifier speed, each figure beside its anchor from the same run:
 * 1. In process: `classifyCommand` over a 10,000-command corpus generated from a seed (every category of
 *    the rules plus the tricky forms: sequences, pipes, wrappers, `bash -c`, substitutions, here-documents),
 *    timed per command, p50/p99/max; anchor: shell-quote's `parse` alone over the same corpus (the
 *    tokenizer the classifier is built on). Rounds alternate ours and the anchor; the median round counts.
 * 2. Over HTTP: `POST /api/hooks/classify` with safe-tier tool calls (agent gateway token as Bearer) on the
 *    real backend request listener (`createBackendListener`, as server.ts serves it; embedded PostgreSQL in /dev/shm, the server in a worker thread),
 *    autocannon from the main thread; anchor: the same server's `GET /health` (one database round trip, as
 *    the hook route's token check has).
 * Knobs: BENCH_CORPUS (10000), BENCH_SEED (8), BENCH_ROUNDS (3), BENCH_CONNECTIONS (10), BENCH_DURATION
 * seconds (8); BENCH_ONLY_INPROCESS=1 stops after (1).
 */

import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { isMainThread, parentPort, type Worker, workerData } from "node:worker_threads";
import autocannon from "autocannon";
import { parse } from "shell-quote";
import { classifyCommand } from "../backend/src/permissions/classifier/index";
import { generateCorpus } from "../backend/src/permissions/classifier/testing/corpus";
import { newId, sealGatewayToken } from "../common/src/index";
import { startBenchWorker } from "./lib/workers";

const CORPUS = Number(process.env.BENCH_CORPUS ?? 10_000);
const SEED = Number(process.env.BENCH_SEED ?? 8);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const DURATION = Number(process.env.BENCH_DURATION ?? 8);
const DATA_KEY = "cd".repeat(32);

interface ServerData {
  databaseUrl: string;
}

const pct = (sorted: Float64Array, p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const µs = (ms: number) => `${(ms * 1000).toFixed(1)} µs`;

/** Per-command times (ms) of `run` over the corpus, sorted. */
function timeEach(corpus: readonly string[], run: (command: string) => unknown): Float64Array {
  const times = new Float64Array(corpus.length);
  for (let i = 0; i < corpus.length; i++) {
    const start = process.hrtime.bigint();
    run(corpus[i]);
    times[i] = Number(process.hrtime.bigint() - start) / 1e6;
  }
  return times.sort();
}

function median<T>(rounds: T[], key: (round: T) => number): T {
  return [...rounds].sort((a, b) => key(a) - key(b))[Math.floor(rounds.length / 2)];
}

function inProcess(): void {
  const corpus = generateCorpus(CORPUS, SEED);
  const tiers = { safe: 0, dangerous: 0, destructive: 0 };
  for (const command of corpus) tiers[classifyCommand(command).tier]++;
  // shell-quote throws on a few malformed rows (`${}`): the anchor pays for that like ours does.
  const anchor = (command: string) => {
    try {
      return parse(command);
    } catch {
      return null;
    }
  };
  // Warm both (JIT) before measuring.
  for (let i = 0; i < 2; i++) {
    timeEach(corpus, classifyCommand);
    timeEach(corpus, anchor);
  }
  const ours: Float64Array[] = [];
  const theirs: Float64Array[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    ours.push(timeEach(corpus, classifyCommand));
    theirs.push(timeEach(corpus, anchor));
  }
  const o = median(ours, (t) => pct(t, 99));
  const a = median(theirs, (t) => pct(t, 99));
  const total = (t: Float64Array) => t.reduce((sum, x) => sum + x, 0);
  console.log(
    `classify bench: ${corpus.length} commands (seed ${SEED}: ${tiers.safe} safe, ${tiers.dangerous} dangerous, ` +
      `${tiers.destructive} destructive), ${ROUNDS} rounds, median round by p99`,
  );
  console.log(
    `in process: classifyCommand p50 ${µs(pct(o, 50))}, p99 ${µs(pct(o, 99))}, max ${µs(o[o.length - 1])}, ` +
      `${(corpus.length / (total(o) / 1000)).toFixed(0)} commands/s`,
  );
  console.log(
    `anchor    : shell-quote parse p50 ${µs(pct(a, 50))}, p99 ${µs(pct(a, 99))}, max ${µs(a[a.length - 1])}, ` +
      `${(corpus.length / (total(a) / 1000)).toFixed(0)} commands/s`,
  );
  console.log(
    `ratio classify/parse: p50 ${(pct(o, 50) / pct(a, 50)).toFixed(2)}x, p99 ${(pct(o, 99) / pct(a, 99)).toFixed(2)}x; ` +
      `goal p99 < 0.2 ms in process: ${pct(o, 99) < 0.2 ? "met" : "MISSED"} (${pct(o, 99).toFixed(4)} ms)`,
  );
}

/** The backend app with the permission routes, in this worker thread; posts its port. */
async function runServer(data: ServerData): Promise<void> {
  const [
    { createBackendListener },
    { loadBackendConfig },
    { createPermissionBus },
    { connectDatabase },
    common,
  ] = await Promise.all([
    import("../backend/src/app"),
    import("../backend/src/config"),
    import("../backend/src/permissions/bus"),
    import("../drizzle/client"),
    import("../common/src/index"),
  ]);
  const config = loadBackendConfig({
    DATABASE_URL: data.databaseUrl,
    DATA_ENCRYPTION_KEY: DATA_KEY,
    INTERNAL_API_KEY: "bench-internal-key-0123456789abcdef",
    LOG_LEVEL: "silent",
    JOB_WORKER_ENABLED: "false",
  });
  const logger = common.createLogger("bench", "silent");
  const database = connectDatabase(config.DATABASE_URL, { max: 10, applicationName: "svc-bench" });
  const permissionBus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
  await permissionBus.start();
  const server = createServer(createBackendListener({ config, database, logger, permissionBus }));
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  parentPort?.postMessage((server.address() as AddressInfo).port);
}

function startServer(data: ServerData): Promise<{ port: number; worker: Worker }> {
  return startBenchWorker(import.meta.url, data);
}

/** Safe-tier calls as an agent's pre-tool-use hook sends them. */
const SAFE_CALLS = [
  { tool_name: "Bash", tool_input: { command: "git status" } },
  { tool_name: "Bash", tool_input: { command: "ls -la src && grep -rn TODO src | head -20" } },
  // A file of the agent's own workspace (relative paths are the workspace's).
  { tool_name: "Read", tool_input: { file_path: "src/app.ts" } },
  { toolName: "bash", toolInput: { command: "cat package.json | jq .dependencies" } },
];

async function overHttp(): Promise<void> {
  const [{ startBenchPostgres }, { migrateDatabase }, { connectDatabase }, { agents, users }] =
    await Promise.all([
      import("./lib/postgres"),
      import("../drizzle/migrate"),
      import("../drizzle/client"),
      import("../drizzle/schema/index"),
    ]);
  const { cluster, stop } = await startBenchPostgres("classify");
  let server: Worker | undefined;
  try {
    const databaseUrl = cluster.url();
    await migrateDatabase(databaseUrl);
    const seed = connectDatabase(databaseUrl, { max: 2 });
    const userId = newId("usr");
    await seed.db.insert(users).values({
      id: userId,
      email: `${userId}@example.com`,
      name: "Bench user",
      referralCode: userId.slice(4, 16),
      plan: "solo",
    });
    const token = "b3".repeat(32);
    await seed.db.insert(agents).values({
      id: newId("agt"),
      userId,
      name: "Bench agent",
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, token),
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      version: "2026.4.11",
      status: "running",
    });
    await seed.close();

    const started = await startServer({ databaseUrl });
    server = started.worker;
    const base = `http://127.0.0.1:${started.port}`;
    const headers = { "content-type": "application/json", authorization: `Bearer ${token}` };
    for (const call of SAFE_CALLS) {
      const res = await fetch(`${base}/api/hooks/classify`, {
        method: "POST",
        headers,
        body: JSON.stringify(call),
      });
      const answer = (await res.json()) as { allow?: boolean; tier?: string };
      if (res.status !== 200 || answer.allow !== true || answer.tier !== "safe") {
        throw new Error(
          `classify answered ${res.status} ${JSON.stringify(answer)} for ${JSON.stringify(call)}`,
        );
      }
    }
    const health = await fetch(`${base}/health`);
    if (health.status !== 200) throw new Error(`/health answered ${health.status}`);

    const classifyRequests = SAFE_CALLS.map((call) => ({
      method: "POST" as const,
      path: "/api/hooks/classify",
      headers,
      body: JSON.stringify(call),
    }));
    const cannon = async (
      options: { path?: string; requests?: typeof classifyRequests },
      duration: number,
    ) => {
      const result = await autocannon({
        url: `${base}${options.path ?? ""}`,
        connections: CONNECTIONS,
        duration,
        ...(options.requests ? { requests: options.requests } : {}),
      });
      if (result.non2xx > 0 || result.errors > 0) {
        throw new Error(
          `errors on ${options.path ?? "classify"}: ${result.non2xx} non-2xx, ${result.errors} errors, status codes ${JSON.stringify(result.statusCodeStats)}`,
        );
      }
      return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
    };
    // Warm both paths (JIT, token cache, pooled connections) before measuring.
    await cannon({ path: "/health" }, 1);
    await cannon({ requests: classifyRequests }, 1);
    const anchor = await cannon({ path: "/health" }, DURATION);
    const classify = await cannon({ requests: classifyRequests }, DURATION);
    const f = (n: number) => n.toFixed(0);
    console.log(
      `over HTTP: ${CONNECTIONS} connections x ${DURATION} s, backend in a worker thread, loopback`,
    );
    console.log(
      `POST /api/hooks/classify (safe tier): ${f(classify.rps)} req/s, p50 ${classify.p50} ms, p99 ${classify.p99} ms`,
    );
    console.log(
      `anchor GET /health          : ${f(anchor.rps)} req/s, p50 ${anchor.p50} ms, p99 ${anchor.p99} ms`,
    );
    console.log(
      `ratio classify/health: ${(classify.rps / anchor.rps).toFixed(2)}; goal >= 3000 req/s over HTTP: ` +
        `${classify.rps >= 3000 ? "met" : "MISSED"}`,
    );
  } finally {
    await server?.terminate();
    await stop();
  }
}

if (isMainThread) {
  inProcess();
  if (!process.env.BENCH_ONLY_INPROCESS) await overHttp();
} else {
  await runServer(workerData as ServerData);
}
