/**
 * The real agent runtime on the platform, each figure beside an anchor from the same run (OpenClaw
 * RUNTIME_VERSION, installed by the platform's installer; a scripted OpenAI-compatible provider on loopback
 * behind the platform's AI proxy, answering at once):
 * 1. Deploy → running: `POST /api/platform-jobs/provision` through the real backend, worker and local driver
 *    until the job completes (the wrapper reports `running` only once the permission plugin answers);
 *    anchor: the same OpenClaw started directly (`gateway run`) until its `/healthz` answers.
 *    With BENCH_INSTALL=1 the first deploy installs the runtime into an empty RUNTIMES_DIR first (about
 *    1 GB from the npm registry), reported on its own.
 * 2. Idle memory: RSS of the agent (wrapper + OpenClaw, its whole process group) after BENCH_IDLE_S
 *    seconds; anchor: the directly started OpenClaw's RSS.
 * 3. Chat round trip: BENCH_CHATS sequential `POST /v1/chat/completions` (one session) through the agent's
 *    URL — what the platform's chat jobs call, the wrapper in front — and straight to the agent's own
 *    runtime port; ratio = direct p50 / platform p50.
 * 4. Classify overhead per tool call: the permission plugin's `before_tool_call` handler (the platform's
 *    classify route of this backend, as the agent calls it) timed per call; anchor: the runtime's own
 *    latency of that tool call (chats needing one `exec echo hi` minus plain chats, on the directly started
 *    OpenClaw configured the same but without the plugin), and the same difference on the agent.
 * Knobs: BENCH_CHATS (40), BENCH_IDLE_S (10), BENCH_INSTALL (unset), RUNTIMES_DIR, RUNTIME_VERSION.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

const CHATS = Number(process.env.BENCH_CHATS ?? 40);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10);
const AGENT_ID = "agt_benchruntime000001";

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const ms = (value: number) => `${value.toFixed(1)} ms`;
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;
const sleep = (delay: number) => new Promise((resolve) => setTimeout(resolve, delay));

async function until<T>(what: string, timeoutMs: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`);
    await sleep(50);
  }
}

/** RSS of a process and its descendants, from /proc. */
async function treeRss(pid: number): Promise<number> {
  const { readdir } = await import("node:fs/promises");
  const parents = new Map<number, number>();
  const rss = new Map<number, number>();
  for (const entry of await readdir("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    const status = await readFile(`/proc/${entry}/status`, "utf8").catch(() => "");
    const ppid = /PPid:\s+(\d+)/.exec(status);
    const kb = /VmRSS:\s+(\d+) kB/.exec(status);
    if (ppid) parents.set(Number(entry), Number(ppid[1]));
    if (kb) rss.set(Number(entry), Number(kb[1]) * 1024);
  }
  const inTree = (candidate: number): boolean => {
    for (let at: number | undefined = candidate; at && at > 1; at = parents.get(at))
      if (at === pid) return true;
    return false;
  };
  let total = 0;
  for (const [member, bytes] of rss) if (inTree(member)) total += bytes;
  return total;
}

async function main(): Promise<void> {
  const [
    { startBenchPostgres },
    { migrateDatabase },
    schema,
    { startFakeAiProvider },
    common,
    install,
    installConfig,
    fixtures,
    testing,
    { startLocalAgentBackend },
  ] = await Promise.all([
    import("./lib/postgres"),
    import("../drizzle/migrate"),
    import("../drizzle/schema/index"),
    import("../common/testing/fakes/ai-provider"),
    import("../common/src/index"),
    import("../backend/src/runtime-install/index"),
    import("../backend/src/runtime-install/config"),
    import("../backend/src/runtime/testing/fixtures"),
    import("../backend/src/testing/index"),
    import("../backend/src/runtime/testing/local-agents"),
  ]);
  const version =
    process.env.RUNTIME_VERSION ?? (await import("../common/src/runtime-version")).MANAGED_BASELINE_VERSION;
  const dir = await mkdtemp(join(tmpdir(), "svc-bench-runtime-"));
  const { chmod } = await import("node:fs/promises");
  await chmod(dir, 0o755);
  let runtimesDir = installConfig.runtimesDirOf({
    RUNTIMES_DIR: installConfig.runtimeInstallEnv.RUNTIMES_DIR.parse(process.env.RUNTIMES_DIR),
    DATA_DIR: installConfig.runtimeInstallEnv.DATA_DIR.parse(process.env.DATA_DIR),
  });
  if (process.env.BENCH_INSTALL === "1") {
    runtimesDir = join(dir, "runtimes");
    const started = performance.now();
    await install.ensureRuntime({ runtimesDir, version });
    console.log(
      `install (first deploy only): ${((performance.now() - started) / 1000).toFixed(1)} s into an empty ${runtimesDir}`,
    );
  }
  const runtime = await install.ensureRuntime({ runtimesDir, version });

  const pg = await startBenchPostgres("runtime");
  const provider = await startFakeAiProvider();
  provider.setResponder((body, { lastUserText }) => {
    const last = (body.messages as Array<{ role: string }>).at(-1);
    if (last?.role === "tool") return { content: "done" };
    if (lastUserText.startsWith("TOOL"))
      return { toolCalls: [{ name: "exec", arguments: { command: "echo hi" } }] };
    return { content: "hello" };
  });
  let direct: ChildProcess | undefined;
  const databaseUrl = pg.cluster.url();
  await migrateDatabase(databaseUrl);
  process.env.DATABASE_URL = databaseUrl;
  const database = testing.testDatabase();
  const port = await common.freePort();
  const backend = await startLocalAgentBackend(
    {
      BACKEND_PUBLIC_URL: `http://127.0.0.1:${port}`,
      INTERNAL_API_KEY: testing.INTERNAL_API_KEY,
      HMAC_SECRET: testing.HMAC_SECRET,
      DATA_ENCRYPTION_KEY: testing.DATA_ENCRYPTION_KEY,
      AI_PROVIDER_URL: provider.url,
      AI_PROVIDER_KEY: provider.apiKey,
      AI_DEFAULT_MODEL: "bench/model",
      AI_REQUESTS_PER_HOUR: "1000000",
      AI_TOKENS_PER_DAY: "1000000000",
      PROVISION_HEALTH_TIMEOUT_MS: "120000",
    },
    {
      port,
      permissions: true,
      agentsDir: join(dir, "agents"),
      managedRuntime: { version, runtimesDir },
      wrapperEnv: { LOG_LEVEL: "warn" },
    },
  );
  try {
    const owner = await testing.createUser({ plan: "pro" });
    await database.db.insert(schema.agents).values({ id: AGENT_ID, userId: owner.id, name: "Bench" });
    const internal = {
      authorization: `Bearer ${testing.INTERNAL_API_KEY}`,
      "content-type": "application/json",
    };

    // 1. Deploy → running.
    const deployStarted = performance.now();
    const enqueued = await fetch(`${backend.url}/api/platform-jobs/provision`, {
      method: "POST",
      headers: internal,
      body: JSON.stringify({ userId: owner.id, email: owner.email, agentId: AGENT_ID, plan: "pro" }),
    }).then((res) => res.json() as Promise<{ job: { id: string } }>);
    await until("provision", 180_000, async () => {
      const { job: current } = (await fetch(`${backend.url}/api/platform-jobs/${enqueued.job.id}`, {
        headers: internal,
      }).then((res) => res.json())) as { job: { status: string; error: string | null } };
      if (current.status === "failed") throw new Error(`provision failed: ${current.error}`);
      return current.status === "completed" ? current : undefined;
    });
    const deployMs = performance.now() - deployStarted;
    const agent = await fixtures.readAgent(AGENT_ID);
    const token = common.openGatewayToken(testing.DATA_ENCRYPTION_KEY, agent.gatewayTokenEncrypted as string);
    const agentUrl = agent.url as string;
    const agentDir = join(dir, "agents", AGENT_ID);
    const record = JSON.parse(await readFile(join(agentDir, "service.json"), "utf8")) as {
      pid: number;
      runtimePort: number;
    };

    // The anchor: the same OpenClaw, the agent's configuration without the plugin, started directly.
    const anchorState = join(dir, "direct");
    await mkdir(join(anchorState, "tmp"), { recursive: true });
    const config = JSON.parse(await readFile(join(agentDir, "state", "openclaw.json"), "utf8"));
    config.plugins.load.paths = [];
    delete config.plugins.entries["platform-guard"];
    config.agents.defaults.workspace = join(anchorState, "workspace");
    config.logging.file = join(anchorState, "openclaw.log");
    await writeFile(join(anchorState, "openclaw.json"), JSON.stringify(config));
    const directPort = await common.freePort();
    const directStarted = performance.now();
    direct = spawn(
      runtime.node,
      [
        runtime.entry,
        "gateway",
        "run",
        "--port",
        String(directPort),
        "--bind",
        "loopback",
        "--auth",
        "token",
        "--allow-unconfigured",
      ],
      {
        env: {
          PATH: process.env.PATH,
          HOME: anchorState,
          TMPDIR: join(anchorState, "tmp"),
          OPENCLAW_STATE_DIR: anchorState,
          OPENCLAW_CONFIG_PATH: join(anchorState, "openclaw.json"),
          OPENCLAW_GATEWAY_TOKEN: token,
          OPENCLAW_NO_RESPAWN: "1",
          NO_COLOR: "1",
        },
        stdio: "ignore",
      },
    );
    await until("direct /healthz", 120_000, async () =>
      (await fetch(`http://127.0.0.1:${directPort}/healthz`)).ok ? true : undefined,
    );
    const directStartMs = performance.now() - directStarted;
    console.log(
      `deploy → running (runtime cached): ${(deployMs / 1000).toFixed(1)} s | anchor: OpenClaw started directly to /healthz ${(directStartMs / 1000).toFixed(1)} s | ratio ${(deployMs / directStartMs).toFixed(2)}x`,
    );

    // 2. Idle memory.
    await sleep(IDLE_S * 1000);
    const agentRss = await treeRss(record.pid);
    const directRss = await treeRss(direct.pid as number);
    console.log(
      `idle RSS after ${IDLE_S} s: agent (wrapper + OpenClaw) ${mb(agentRss)} | anchor: OpenClaw alone ${mb(directRss)} | wrapper's share ${mb(agentRss - directRss)}`,
    );

    // 3 and 4: chats, through the agent's URL and straight to its runtime; with and without a tool call.
    const chatOnce = async (base: string, message: string, session: string): Promise<number> => {
      const started = performance.now();
      const res = await fetch(`${base}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({
          model: "openclaw",
          user: session,
          messages: [{ role: "user", content: message }],
        }),
      });
      const body = (await res.json()) as { choices?: Array<{ message?: { content?: string } }> };
      const reply = body.choices?.[0]?.message?.content;
      if (!res.ok || (reply !== "hello" && reply !== "done"))
        throw new Error(`chat: ${res.status} ${JSON.stringify(body).slice(0, 600)}`);
      return performance.now() - started;
    };
    const series = async (base: string, message: string, session: string): Promise<number[]> => {
      await chatOnce(base, message, session); // warm
      const times: number[] = [];
      for (let i = 0; i < CHATS; i++) times.push(await chatOnce(base, message, `${session}-${i % 4}`));
      return times;
    };
    const runtimeUrl = `http://127.0.0.1:${record.runtimePort}`;
    const directUrl = `http://127.0.0.1:${directPort}`;
    // Alternating one request each way (the order flipping every round), so drift of the machine and of the
    // runtime's session sizes weighs on both alike.
    const viaPlatform: number[] = [];
    const viaRuntime: number[] = [];
    await chatOnce(agentUrl, "hi", "bench-platform-0");
    await chatOnce(runtimeUrl, "hi", "bench-runtime-0");
    for (let i = 0; i < CHATS; i++) {
      const platformFirst = i % 2 === 0;
      const session = `${i % 4}`;
      if (platformFirst) viaPlatform.push(await chatOnce(agentUrl, "hi", `bench-platform-${session}`));
      viaRuntime.push(await chatOnce(runtimeUrl, "hi", `bench-runtime-${session}`));
      if (!platformFirst) viaPlatform.push(await chatOnce(agentUrl, "hi", `bench-platform-${session}`));
    }
    console.log(
      `chat round trip (${CHATS} each way, alternating): via the agent's URL p50 ${ms(pct(viaPlatform, 50))} p99 ${ms(pct(viaPlatform, 99))} | anchor: its runtime directly p50 ${ms(pct(viaRuntime, 50))} p99 ${ms(pct(viaRuntime, 99))} | ratio ${(pct(viaRuntime, 50) / pct(viaPlatform, 50)).toFixed(2)}x (goal ≥ 0.9x)`,
    );
    const guarded = await series(runtimeUrl, "TOOL", "bench-tool-guarded");
    const unguarded = await series(directUrl, "TOOL", "bench-tool-direct");
    const plainGuarded = await series(runtimeUrl, "hi", "bench-plain-guarded");
    const plainDirect = await series(directUrl, "hi", "bench-plain-direct");
    const toolCost = (tool: number[], plain: number[]) => pct(tool, 50) - pct(plain, 50);
    // The plugin's own handler, as OpenClaw calls it before each tool call, against the same classify
    // route the agent uses: what the guard adds to a call (the tool's own run is not in it).
    // Plain JavaScript the runtime loads (type-checked in its own folder), imported by path here.
    const pluginPath = "../wrapper/openclaw-plugin/index.js";
    const { createToolCallGuard } = (await import(pluginPath)) as {
      createToolCallGuard: (
        config: unknown,
        deps: { env: Record<string, string> },
      ) => (event: unknown, ctx: unknown) => Promise<unknown>;
    };
    const guard = createToolCallGuard(
      { classifyUrl: `${backend.url}/api/hooks/classify` },
      { env: { OPENCLAW_GATEWAY_TOKEN: token } },
    );
    const event = { toolName: "exec", params: { command: "echo hi" } };
    const ctx = { agentId: "main", sessionKey: "agent:main:bench" };
    const guardTimes: number[] = [];
    for (let i = 0; i < 20 + CHATS * 5; i++) {
      const started = performance.now();
      const verdict = await guard(event, ctx);
      if (verdict !== undefined) throw new Error(`the guard blocked a safe call: ${JSON.stringify(verdict)}`);
      if (i >= 20) guardTimes.push(performance.now() - started);
    }
    console.log(
      `classify per tool call (the plugin's handler, ${guardTimes.length} calls): p50 ${ms(pct(guardTimes, 50))} p99 ${ms(pct(guardTimes, 99))} (goal p50 < 5 ms) | anchor: the runtime's own tool call (exec echo hi, without the plugin) ${ms(toolCost(unguarded, plainDirect))} over a plain chat; with the plugin ${ms(toolCost(guarded, plainGuarded))} (chat p50s of ~${ms(pct(plainDirect, 50))}: differences of tens of ms are within their noise)`,
    );
  } finally {
    if (direct && direct.exitCode === null) {
      const exited = new Promise((resolve) => direct?.once("exit", resolve));
      direct.kill("SIGTERM");
      await exited;
    }
    await backend.close();
    await database.close();
    await provider.close();
    await pg.stop();
    await rm(dir, { recursive: true, force: true, maxRetries: 5 });
  }
}

await main();
