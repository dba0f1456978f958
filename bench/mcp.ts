/**
 * Skill tool calls through the platform beside a bare MCP client, in the same run against the same loopback
 * MCP server (the built-in `websearch` fake, `web_search_exa`, in its own worker thread):
 * - route: `POST /api/mcp/websearch/call/web_search_exa` through the real route handler (session cookie
 *   lookup, the activation check-and-touch in PostgreSQL, the pooled MCP client over the outbound client);
 * - bare: `@modelcontextprotocol/client` connected once with its own fetch, `callTool` directly.
 * Both run in one driver thread (the web's modules need its tsconfig paths), interleaved in rounds.
 * 1. Latency: sequential calls, p50/p99 of each; added p50 = route − bare (goal < 2 ms). Beside them, the
 *    route's parts alone: the pooled MCP call (no route, no database), the service (activation
 *    check-and-touch beside the call) and the session lookup.
 * 2. Throughput: BENCH_CONCURRENCY calls in flight for BENCH_DURATION seconds each, rounds alternating;
 *    route / bare (goal >= 0.5x).
 * Knobs: BENCH_SEQUENTIAL (2000 per side), BENCH_CONCURRENCY (8), BENCH_DURATION (5), BENCH_ROUNDS (2).
 */
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import { callsPerSecond } from "./lib/load";
import { startBenchWorker } from "./lib/workers";

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 2000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const DURATION_S = Number(process.env.BENCH_DURATION ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const ARGS = { query: "bench", numResults: 1 };

type Data = { role: "server" } | { role: "driver"; databaseUrl: string; mcpUrl: string };

interface DriverResult {
  route: { p50: number; p99: number; rps: number[] };
  bare: { p50: number; p99: number; rps: number[] };
  pooled: { p50: number; p99: number };
  session: { p50: number; p99: number };
  service: { p50: number; p99: number };
}

const quantile = (sorted: number[], q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

async function serverRole(): Promise<void> {
  const { startFakeMcpServer } = await import("../common/testing/fakes/mcp-servers");
  const server = await startFakeMcpServer("websearch");
  parentPort?.postMessage(server.port);
}

async function driverRole(data: Extract<Data, { role: "driver" }>): Promise<void> {
  // The bare client's fetch (undici) keeps an abort listener on the SDK's per-connection signal for every
  // request until the request is collected; under load Node warns about it. Not the platform's path.
  process.removeAllListeners("warning");
  // The web's modules, loaded by this worker's tsx with the web's tsconfig (their `@/` paths); typed here
  // by the little the bench uses, so the scripts' typecheck does not walk into the web app.
  const web = (path: string): Promise<unknown> => import(path);
  type Handler = (
    request: Request,
    context: { params: Promise<Record<string, string>> },
  ) => Promise<Response>;
  const [
    { loadWebConfig },
    { overrideWebContext, webContext },
    { createUser },
    sessions,
    activate,
    call,
    sdk,
    mcpClient,
    catalog,
    service,
  ] = (await Promise.all([
    web("@/lib/infra/config"),
    web("@/lib/infra/context"),
    web("@/lib/accounts/users"),
    web("@/lib/sessions/service"),
    web("@/app/api/mcp/[skillId]/route"),
    web("@/app/api/mcp/[skillId]/call/[toolName]/route"),
    import("@modelcontextprotocol/client"),
    web("@/lib/skills/mcp-client"),
    web("@/lib/skills/catalog"),
    web("@/lib/skills/service"),
  ])) as [
    { loadWebConfig: (env: Record<string, string>) => unknown },
    { overrideWebContext: (o: { config: unknown }) => void; webContext: () => unknown },
    { createUser: (ctx: unknown, u: { email: string; name: string }) => Promise<{ id: string }> },
    {
      createSession: (ctx: unknown, userId: string) => Promise<{ token: string }>;
      findSessionUser: (ctx: unknown, token: string) => Promise<unknown>;
      SESSION_COOKIE: string;
    },
    { POST: Handler },
    { POST: Handler },
    typeof import("@modelcontextprotocol/client"),
    {
      callMcpTool: (
        skill: unknown,
        tool: string,
        args: Record<string, unknown>,
      ) => Promise<{ isError: boolean }>;
    },
    { findSkill: (config: unknown, id: string) => unknown },
    {
      callSkillTool: (
        ctx: unknown,
        userId: string,
        skillId: string,
        tool: string,
        args: Record<string, unknown>,
      ) => Promise<unknown>;
    },
  ];
  const config = loadWebConfig({
    DATABASE_URL: data.databaseUrl,
    SESSION_SECRET: "bench-session-secret-0123456789abcdef",
    PUBLIC_URL: "http://localhost:3000",
    LOG_LEVEL: "silent",
    MCP_WEBSEARCH_URL: data.mcpUrl,
  });
  overrideWebContext({ config });
  const ctx = webContext();
  const user = await createUser(ctx, { email: "bench@example.com", name: "bench" });
  const { token } = await sessions.createSession(ctx, user.id);
  const cookie = `${sessions.SESSION_COOKIE}=${token}`;
  const activation = await activate.POST(
    new Request("http://localhost:3000/api/mcp/websearch", { method: "POST", headers: { cookie } }),
    { params: Promise.resolve({ skillId: "websearch" }) },
  );
  if (activation.status !== 200) throw new Error(`activation failed: ${await activation.text()}`);

  const body = JSON.stringify(ARGS);
  const params = { params: Promise.resolve({ skillId: "websearch", toolName: "web_search_exa" }) };
  const viaRoute = async () => {
    const res = await call.POST(
      new Request("http://localhost:3000/api/mcp/websearch/call/web_search_exa", {
        method: "POST",
        headers: { cookie, "content-type": "application/json" },
        body,
      }),
      params,
    );
    const answer = (await res.json()) as { success?: boolean };
    if (res.status !== 200 || !answer.success)
      throw new Error(`route call failed: ${JSON.stringify(answer)}`);
  };
  const bareClient = new sdk.Client({ name: "bench-bare", version: "1.0.0" }, { capabilities: {} });
  await bareClient.connect(new sdk.StreamableHTTPClientTransport(new URL(data.mcpUrl)));
  const viaBare = async () => {
    const result = await bareClient.callTool({ name: "web_search_exa", arguments: ARGS });
    if (result.isError) throw new Error("bare call failed");
  };

  // Parts of the route, for the breakdown: the session lookup, and the pooled MCP call without the route.
  const skill = catalog.findSkill(config, "websearch");
  const viaPool = async () => {
    if ((await mcpClient.callMcpTool(skill, "web_search_exa", ARGS)).isError)
      throw new Error("pooled call failed");
  };
  const viaService = async () => {
    await service.callSkillTool(ctx, user.id, "websearch", "web_search_exa", ARGS);
  };
  const sessionLookup = async () => {
    if (!(await sessions.findSessionUser(ctx, token))) throw new Error("no session");
  };

  // Warm both paths (JIT, pools, the route's first connection).
  for (let i = 0; i < 200; i++) {
    await viaRoute();
    await viaBare();
  }

  const times = {
    route: [] as number[],
    bare: [] as number[],
    pooled: [] as number[],
    session: [] as number[],
    service: [] as number[],
  };
  const roundSize = 200;
  for (let done = 0; done < SEQUENTIAL; done += roundSize) {
    for (const [name, fn] of [
      ["route", viaRoute],
      ["bare", viaBare],
      ["pooled", viaPool],
      ["session", sessionLookup],
      ["service", viaService],
    ] as const) {
      for (let i = 0; i < roundSize; i++) {
        const start = performance.now();
        await fn();
        times[name].push(performance.now() - start);
      }
    }
  }

  const throughput = (fn: () => Promise<void>) => callsPerSecond(CONCURRENCY, DURATION_S, fn);
  const rps = { route: [] as number[], bare: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? (["route", "bare"] as const) : (["bare", "route"] as const);
    for (const name of order) rps[name].push(await throughput(name === "route" ? viaRoute : viaBare));
  }

  const summary = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return { p50: quantile(sorted, 0.5), p99: quantile(sorted, 0.99) };
  };
  const result: DriverResult = {
    route: { ...summary(times.route), rps: rps.route },
    bare: { ...summary(times.bare), rps: rps.bare },
    pooled: summary(times.pooled),
    session: summary(times.session),
    service: summary(times.service),
  };
  await bareClient.close();
  parentPort?.postMessage(result);
}

/** The driver in a worker whose tsx loader uses the web's tsconfig (its `@/` paths). */
function startDriver(data: Data): Promise<DriverResult> {
  const tsconfig = join(import.meta.dirname, "../web/tsconfig.json");
  const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
    .then((tsx) => { tsx.register({ tsconfig: ${JSON.stringify(tsconfig)} }); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: data });
  return new Promise((resolve, reject) => {
    worker.once("message", (result: DriverResult) => {
      void worker.terminate();
      resolve(result);
    });
    worker.once("error", reject);
  });
}

async function main(): Promise<void> {
  const [{ startBenchPostgres }, { migrateDatabase }] = await Promise.all([
    import("./lib/postgres"),
    import("../drizzle/migrate"),
  ]);
  const pg = await startBenchPostgres("mcp");
  const server = await startBenchWorker(import.meta.url, { role: "server" } satisfies Data);
  try {
    const databaseUrl = pg.cluster.url();
    await migrateDatabase(databaseUrl);
    const mcpUrl = `http://127.0.0.1:${server.port}/mcp`;
    console.log(
      `mcp bench: ${SEQUENTIAL} sequential calls per side, then ${CONCURRENCY} in flight for ${DURATION_S} s x ${ROUNDS} rounds`,
    );
    const r = await startDriver({ role: "driver", databaseUrl, mcpUrl });
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const ms = (n: number) => `${n.toFixed(3)} ms`;
    console.log(`latency  route p50 ${ms(r.route.p50)} p99 ${ms(r.route.p99)}`);
    console.log(`latency  bare  p50 ${ms(r.bare.p50)} p99 ${ms(r.bare.p99)}`);
    console.log(
      `parts    pooled MCP call alone p50 ${ms(r.pooled.p50)}; service (activation check beside the call) p50 ${ms(r.service.p50)}; session lookup p50 ${ms(r.session.p50)}`,
    );
    const added = r.route.p50 - r.bare.p50;
    console.log(`added p50 ${ms(added)} (goal < 2 ms) ${added < 2 ? "✔" : "✘"}`);
    const ratio = mean(r.route.rps) / mean(r.bare.rps);
    console.log(
      `throughput route ${r.route.rps.map((x) => x.toFixed(0)).join(", ")} calls/s; bare ${r.bare.rps
        .map((x) => x.toFixed(0))
        .join(", ")} calls/s`,
    );
    console.log(
      `throughput ratio route/bare ${ratio.toFixed(2)}x (goal >= 0.5x) ${ratio >= 0.5 ? "✔" : "✘"}`,
    );
  } finally {
    await server.worker.terminate();
    await pg.stop();
  }
}

if (isMainThread) {
  await main();
} else if ((workerData as Data).role === "server") {
  await serverRole();
} else {
  await driverRole(workerData as Extract<Data, { role: "driver" }>);
}
