/**
 * Wrapper proxy cost, each figure beside its anchors from the same run, all in front of the same upstream:
 * a loopback upstream (node:http, small JSON answer) in one child process; in front of it, each in its own
 * child process, the wrapper's real server (`createWrapperServer`, as `wrapper/src/server.ts` builds it:
 * the runtime's plain HTTP requests on the fast path, its own routes through Express; its supervisor is not
 * started, the proxy does not need it), the same wrapper without the fast path ("Node path": its listener
 * behind Node's server, as before issue 27, and still what serves the requests the fast path hands over),
 * a raw TCP relay (no HTTP at all: the most any proxy process can do on this machine), and the Node proxies
 * users would otherwise deploy: `http-proxy` (node-http-proxy, keep-alive agent, X-Forwarded-* on) and
 * `@fastify/http-proxy` on fastify (undici pool); the load generator in this process.
 * 1. Throughput: autocannon, same connections and duration for each target, in rounds whose order rotates
 *    (so no target always runs first or last): direct, wrapper, relay, node-path, http-proxy, fastify; req/s,
 *    p50 and p99 (ms resolution). Goals: wrapper / relay >= 0.9x, and the wrapper process's own CPU per
 *    request (`process.cpuUsage()` inside it, before and after each slice: every thread of the process, its
 *    garbage collector's too) <= 1.2x the relay process's. Also wrapper / best Node proxy, each against
 *    direct, and the upstream's CPU per request behind each proxy.
 * 2. Added latency: sequential keep-alive requests, direct and proxied interleaved in rounds, p50/p99 in µs.
 * Knobs: BENCH_CONNECTIONS (10), BENCH_DURATION seconds per target (8), BENCH_ROUNDS (8: short slices
 * interleave the targets finely, so a busier moment of the shared machine weighs on each alike),
 * BENCH_SEQUENTIAL (3000), BENCH_ONLY (comma-separated targets, e.g. `wrapper,relay`), BENCH_CPU_PROF (a
 * directory: every role's process writes a `--cpu-prof` profile there).
 */
import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import autocannon from "autocannon";
import { relayServer } from "./lib/relay";

type ProxyRole = "wrapper" | "node-path" | "relay" | "http-proxy" | "fastify";
type Role = { role: "upstream" } | { role: ProxyRole; upstreamPort: number };
const PATH = "/v1/models";

/** The upstream: a small JSON answer with a content length, keep-alive. */
function upstreamServer(): http.Server {
  const body = JSON.stringify({ ok: true, state: "running", uptime: 42, ts: "2026-01-01T00:00:00.000Z" });
  const upstream = http.createServer((_req, res) => {
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  upstream.keepAliveTimeout = 60_000;
  return upstream;
}

/** node-http-proxy as its README deploys it, with a keep-alive agent (without one it opens a socket per request). */
async function httpProxyServer(upstreamPort: number): Promise<http.Server> {
  const { default: httpProxy } = await import("http-proxy");
  const proxy = httpProxy.createProxyServer({
    target: `http://127.0.0.1:${upstreamPort}`,
    agent: new http.Agent({ keepAlive: true, maxSockets: 256 }),
    xfwd: true,
  });
  const server = http.createServer((req, res) => proxy.web(req, res));
  server.keepAliveTimeout = 60_000;
  return server;
}

/** fastify 5 with @fastify/http-proxy (undici pool underneath, via @fastify/reply-from). */
async function fastifyServer(upstreamPort: number): Promise<http.Server> {
  const [{ default: fastify }, { default: fastifyHttpProxy }] = await Promise.all([
    import("fastify"),
    import("@fastify/http-proxy"),
  ]);
  const app = fastify({ logger: false, keepAliveTimeout: 60_000 });
  await app.register(fastifyHttpProxy, { upstream: `http://127.0.0.1:${upstreamPort}` });
  await app.ready();
  return app.server;
}

/**
 * The wrapper's real server, as `wrapper/src/server.ts` builds it; with `nodePath`, the server it was before
 * the fast path (its listener behind Node's server alone), which still serves what the fast path hands over.
 */
async function wrapperServer(upstreamPort: number, nodePath: boolean): Promise<http.Server> {
  const [
    { createWrapperHandler, createWrapperServer },
    { loadWrapperConfig },
    { createRuntimeProxy },
    { createSupervisor },
  ] = await Promise.all([
    import("../wrapper/src/app"),
    import("../wrapper/src/config"),
    import("../wrapper/src/proxy"),
    import("../wrapper/src/runtime/supervisor"),
  ]);
  const { createLogger, drainUnreadBodies } = await import("../common/src/index");
  const stateDir = await mkdtemp(join(tmpdir(), "svc-bench-wrapper-"));
  const config = loadWrapperConfig({
    // The proxy path only: the upstream stands in for the runtime (nothing to verify).
    RUNTIME_KIND: "external",
    RUNTIME_PORT: String(upstreamPort),
    OPENCLAW_STATE_DIR: stateDir,
    WRAPPER_ADMIN_PASSWORD: "bench-admin-password",
    LOG_LEVEL: "info",
  });
  const supervisor = createSupervisor({
    argv: config.runtimeArgv,
    port: config.RUNTIME_PORT,
    token: null,
    stateDir,
    configPath: config.configPath,
    env: config.processEnv,
    healthPollMs: config.RUNTIME_HEALTH_POLL_MS,
    stopTimeoutMs: config.RUNTIME_STOP_TIMEOUT_MS,
  });
  const deps = {
    config,
    supervisor,
    proxy: createRuntimeProxy({ port: config.RUNTIME_PORT }),
    ffmpeg: { available: false, version: null },
    logger: createLogger("wrapper", "info"),
    openclaw: null,
  };
  let wrapper: http.Server;
  if (nodePath) {
    wrapper = http.createServer(drainUnreadBodies(createWrapperHandler(deps)));
    wrapper.on("upgrade", deps.proxy.upgrade);
  } else wrapper = createWrapperServer(deps);
  wrapper.keepAliveTimeout = 60_000;
  return wrapper;
}

/** A bench role in this file's own child process (set by `startRole`). */
const ROLE_ENV = "BENCH_WRAPPER_PROXY_ROLE";

async function runRole(data: Role): Promise<void> {
  const server: http.Server | net.Server =
    data.role === "upstream"
      ? upstreamServer()
      : data.role === "relay"
        ? relayServer(data.upstreamPort)
        : data.role === "http-proxy"
          ? await httpProxyServer(data.upstreamPort)
          : data.role === "fastify"
            ? await fastifyServer(data.upstreamPort)
            : await wrapperServer(data.upstreamPort, data.role === "node-path");
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Asked for it, the process answers the CPU time it has used so far (µs, every thread): its own cost.
  process.on("message", (message) => {
    // Leaving through exit() writes a --cpu-prof profile; a kill would not.
    if (message === "exit") process.exit(0);
    const { user, system } = process.cpuUsage();
    process.send?.(user + system);
  });
  process.send?.((server.address() as AddressInfo).port);
}

/** Runs `data`'s role in a child process; resolves with the port it listens on. */
function startRole(data: Role): Promise<{ port: number; child: ChildProcess }> {
  const profile = process.env.BENCH_CPU_PROF;
  const child = fork(fileURLToPath(import.meta.url), [], {
    execArgv: ["--import", "tsx", ...(profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [])],
    env: { ...process.env, [ROLE_ENV]: JSON.stringify(data) },
  });
  return new Promise((resolve, reject) => {
    child.once("message", (port) => resolve({ port: port as number, child }));
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`${data.role} exited (${code}) before listening`)));
  });
}

/** Asks a role's process to exit (killing it after 10 s). */
function stopRole(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(kill);
      resolve();
    });
    child.send("exit");
  });
}

/** CPU microseconds the child process has used so far. */
function cpuMicros(child: ChildProcess): Promise<number> {
  return new Promise((resolve) => {
    child.once("message", (micros) => resolve(micros as number));
    child.send("cpu");
  });
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};

async function sequential(port: number, count: number, agent: http.Agent): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const start = process.hrtime.bigint();
    await new Promise<void>((resolve, reject) => {
      const req = http.get({ host: "127.0.0.1", port, path: PATH, agent }, (res) => {
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
    });
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return times;
}

type Target = "direct" | ProxyRole;
const LABELS: Record<Target, string> = {
  direct: "direct",
  wrapper: "wrapper",
  "node-path": "wrapper, Node path",
  relay: "raw TCP relay",
  "http-proxy": "http-proxy",
  fastify: "@fastify/http-proxy",
};
interface Figure {
  requests: number;
  /** The proxy process's CPU time over those requests (µs); 0 for direct. */
  cpu: number;
  /** The upstream process's CPU time over those requests (µs). */
  upstreamCpu: number;
  seconds: number;
  /** Requests/s of each round's slice. */
  slices: number[];
  p50: number[];
  p99: number[];
}

const mark = (met: boolean) => (met ? "✔" : "✘");

async function main(): Promise<void> {
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const duration = Number(process.env.BENCH_DURATION ?? 8);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 8));
  const seqCount = Number(process.env.BENCH_SEQUENTIAL ?? 3000);
  // The wrapper and the relay side by side: what the machine's other work does to one it mostly does to both.
  const all: ProxyRole[] = ["wrapper", "relay", "node-path", "http-proxy", "fastify"];
  const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
  const roles = only ? all.filter((role) => only.includes(role)) : all;
  const upstream = await startRole({ role: "upstream" });
  const ports: Partial<Record<Target, number>> = { direct: upstream.port };
  const children: Partial<Record<Target, ChildProcess>> = {};
  try {
    for (const role of roles) {
      const started = await startRole({ role, upstreamPort: upstream.port });
      ports[role] = started.port;
      children[role] = started.child;
    }
    const targets: Target[] = ["direct", ...roles];

    // Each round gives every target the same share of the duration; the order rotates between rounds.
    const slice = Math.max(1, Math.round(duration / rounds));
    const cannon = async (port: number, seconds: number) => {
      const result = await autocannon({
        url: `http://127.0.0.1:${port}${PATH}`,
        connections,
        duration: seconds,
      });
      if (result.non2xx > 0 || result.errors > 0)
        throw new Error(`errors on port ${port}: ${result.non2xx} non-2xx, ${result.errors}`);
      return result;
    };
    // Warm every path (JIT, keep-alive sockets) before measuring.
    for (const target of targets) await cannon(ports[target] as number, 1);
    const figures = new Map<Target, Figure>(
      targets.map((t) => [
        t,
        { requests: 0, cpu: 0, upstreamCpu: 0, seconds: 0, slices: [], p50: [], p99: [] },
      ]),
    );
    for (let round = 0; round < rounds; round++) {
      const order = targets.map((_, i) => targets[(i + round) % targets.length]);
      for (const target of order) {
        const child = children[target];
        const cpuBefore = child ? await cpuMicros(child) : 0;
        const upstreamBefore = await cpuMicros(upstream.child);
        const result = await cannon(ports[target] as number, slice);
        const figure = figures.get(target) as Figure;
        figure.cpu += child ? (await cpuMicros(child)) - cpuBefore : 0;
        figure.upstreamCpu += (await cpuMicros(upstream.child)) - upstreamBefore;
        figure.requests += result.requests.total;
        figure.seconds += result.duration;
        figure.slices.push(result.requests.total / result.duration);
        figure.p50.push(result.latency.p50);
        figure.p99.push(result.latency.p99);
      }
    }
    const rps = (target: Target) => {
      const figure = figures.get(target) as Figure;
      return figure.requests / figure.seconds;
    };
    // Each process's own CPU cost per request, free of the load generator's and the other processes'.
    const cpuPerRequest = (target: Target) => {
      const figure = figures.get(target) as Figure;
      return figure.cpu / figure.requests;
    };
    const upstreamPerRequest = (target: Target) => {
      const figure = figures.get(target) as Figure;
      return figure.upstreamCpu / figure.requests;
    };
    const f = (n: number) => n.toFixed(0);
    const r = (n: number) => n.toFixed(2);
    console.log(
      `wrapper-proxy: ${connections} connections, ${rounds} rounds x ${slice} s per target, small JSON answer, loopback`,
    );
    for (const target of targets) {
      const figure = figures.get(target) as Figure;
      const proxy =
        target === "direct"
          ? ""
          : `, ${r(rps(target) / rps("direct"))}x direct, CPU ${r(cpuPerRequest(target))} µs/req`;
      console.log(
        `${LABELS[target].padEnd(20)}: ${f(rps(target)).padStart(6)} req/s, p50 ${figure.p50.join("/")} ms, ` +
          `p99 ${figure.p99.join("/")} ms${proxy}, upstream CPU ${r(upstreamPerRequest(target))} µs/req`,
      );
    }
    if (ports.wrapper !== undefined) {
      const nodeProxies = (["http-proxy", "fastify"] as const).filter((t) => ports[t] !== undefined);
      if (nodeProxies.length > 0) {
        const best = nodeProxies.reduce((a, b) => (rps(a) >= rps(b) ? a : b));
        const cheapest = nodeProxies.reduce((a, b) => (cpuPerRequest(a) <= cpuPerRequest(b) ? a : b));
        console.log(
          `wrapper / best Node proxy (${LABELS[best]}): ${r(rps("wrapper") / rps(best))}x` +
            (ports.relay !== undefined ? `; raw TCP relay / it ${r(rps("relay") / rps(best))}x` : "") +
            `; CPU per request ${LABELS[cheapest]} / wrapper ${r(cpuPerRequest(cheapest) / cpuPerRequest("wrapper"))}x`,
        );
      }
      if (ports.relay !== undefined) {
        const throughput = rps("wrapper") / rps("relay");
        const cpu = cpuPerRequest("wrapper") / cpuPerRequest("relay");
        console.log(
          `goal: wrapper / raw TCP relay throughput ${throughput.toFixed(3)}x (>= 0.9x) ${mark(throughput >= 0.9)}`,
        );
        // Round by round, to tell a target's own cost from a busy moment of the shared machine.
        const relaySlices = (figures.get("relay") as Figure).slices;
        const perRound = (figures.get("wrapper") as Figure).slices.map((w, i) => w / relaySlices[i]);
        console.log(`      round by round ${perRound.map(r).join(" ")}; median ${r(pct(perRound, 50))}x`);
        console.log(
          `goal: wrapper CPU per request ${r(cpuPerRequest("wrapper"))} µs / relay ${r(cpuPerRequest("relay"))} µs = ` +
            `${cpu.toFixed(3)}x (<= 1.2x) ${mark(cpu <= 1.2)}`,
        );
      }

      const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
      const directTimes: number[] = [];
      const proxiedTimes: number[] = [];
      const seqRounds = 6;
      for (let round = 0; round < seqRounds; round++) {
        directTimes.push(...(await sequential(upstream.port, Math.ceil(seqCount / seqRounds), agent)));
        proxiedTimes.push(...(await sequential(ports.wrapper, Math.ceil(seqCount / seqRounds), agent)));
      }
      agent.destroy();
      if (directTimes.length > 0) {
        const dp50 = pct(directTimes, 50);
        const pp50 = pct(proxiedTimes, 50);
        console.log(
          `sequential ${directTimes.length} req each: direct p50 ${f(dp50)} µs p99 ${f(pct(directTimes, 99))} µs; ` +
            `wrapper p50 ${f(pp50)} µs p99 ${f(pct(proxiedTimes, 99))} µs; ` +
            `added p50 ${f(pp50 - dp50)} µs (< 1000 µs) ${mark(pp50 - dp50 < 1000)}`,
        );
      }
    }
  } finally {
    await Promise.all([upstream.child, ...Object.values(children)].map((child) => child && stopRole(child)));
  }
}

const role = process.env[ROLE_ENV];
if (role) await runRole(JSON.parse(role) as Role);
else await main();
