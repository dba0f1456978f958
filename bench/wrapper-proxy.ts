/**
 * Wrapper proxy cost, each figure beside its anchors from the same run, all in front of the same upstream:
 * a loopback upstream (node:http, small JSON answer) in one worker thread; in front of it, each in its own
 * worker thread, the wrapper's real request listener (`createWrapperHandler`: own routes through Express,
 * everything else to the runtime proxy; its supervisor is not started, the proxy does not need it), a raw
 * TCP relay (no HTTP at all: the most any proxy process can do on this machine), and the Node proxies users
 * would otherwise deploy: `http-proxy` (node-http-proxy, keep-alive agent, X-Forwarded-* on) and
 * `@fastify/http-proxy` on fastify (undici pool); the load generator in the main thread.
 * 1. Throughput: autocannon, same connections and duration for each target, in rounds whose order rotates
 *    (so no target always runs first or last): direct, wrapper, relay, http-proxy, fastify; requests/s,
 *    p50 and p99 (ms resolution). Ratios: wrapper / best Node proxy (goal >= 2.5x), wrapper / relay (goal
 *    >= 0.9x), and each against direct. Beside each proxy, its own thread's CPU time per request (Linux
 *    /proc/thread-self/stat), which the load generator and the upstream on the same cores do not blur.
 * 2. Added latency: sequential keep-alive requests, direct and proxied interleaved in rounds, p50/p99 in µs.
 * Knobs: BENCH_CONNECTIONS (10), BENCH_DURATION seconds per target (8), BENCH_ROUNDS (2),
 * BENCH_SEQUENTIAL (3000), BENCH_ONLY (comma-separated targets, e.g. `wrapper,relay`).
 */
import { mkdtemp } from "node:fs/promises";
import http from "node:http";
import type net from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread, parentPort, type Worker, workerData } from "node:worker_threads";
import autocannon from "autocannon";
import { relayServer } from "./lib/relay";
import { startBenchWorker, threadCpuMs } from "./lib/workers";

type ProxyRole = "wrapper" | "relay" | "http-proxy" | "fastify";
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

/** The wrapper's real request listener, as `wrapper/src/server.ts` builds it. */
async function wrapperServer(upstreamPort: number): Promise<http.Server> {
  const [{ createWrapperHandler }, { loadWrapperConfig }, { createRuntimeProxy }, { createSupervisor }] =
    await Promise.all([
      import("../wrapper/src/app"),
      import("../wrapper/src/config"),
      import("../wrapper/src/proxy"),
      import("../wrapper/src/runtime/supervisor"),
    ]);
  const { createLogger } = await import("../common/src/index");
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
  const proxy = createRuntimeProxy({ port: config.RUNTIME_PORT });
  const logger = createLogger("wrapper", "info");
  const wrapper = http.createServer(
    createWrapperHandler({
      config,
      supervisor,
      proxy,
      ffmpeg: { available: false, version: null },
      logger,
      openclaw: null,
    }),
  );
  wrapper.on("upgrade", proxy.upgrade);
  wrapper.keepAliveTimeout = 60_000;
  return wrapper;
}

async function runWorker(data: Role): Promise<void> {
  const server: http.Server | net.Server =
    data.role === "upstream"
      ? upstreamServer()
      : data.role === "relay"
        ? relayServer(data.upstreamPort)
        : data.role === "http-proxy"
          ? await httpProxyServer(data.upstreamPort)
          : data.role === "fastify"
            ? await fastifyServer(data.upstreamPort)
            : await wrapperServer(data.upstreamPort);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  // Asked for it, the thread answers the CPU time it has used so far (ms): the proxy's own cost.
  parentPort?.on("message", () => parentPort?.postMessage(threadCpuMs()));
  parentPort?.postMessage((server.address() as AddressInfo).port);
}

/** CPU milliseconds the worker thread has used so far. */
function busyMs(worker: Worker): Promise<number> {
  return new Promise((resolve) => {
    worker.once("message", resolve);
    worker.postMessage("busy");
  });
}

function startWorker(data: Role): Promise<{ port: number; worker: Worker }> {
  return startBenchWorker(import.meta.url, data);
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
  relay: "raw TCP relay",
  "http-proxy": "http-proxy",
  fastify: "@fastify/http-proxy",
};
interface Figure {
  requests: number;
  /** The proxy thread's CPU time over those requests (ms); 0 for direct. */
  busy: number;
  seconds: number;
  p50: number[];
  p99: number[];
}

async function main(): Promise<void> {
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const duration = Number(process.env.BENCH_DURATION ?? 8);
  const rounds = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 2));
  const seqCount = Number(process.env.BENCH_SEQUENTIAL ?? 3000);
  const all: ProxyRole[] = ["wrapper", "relay", "http-proxy", "fastify"];
  const only = process.env.BENCH_ONLY?.split(",").map((name) => name.trim());
  const roles = only ? all.filter((role) => only.includes(role)) : all;
  const upstream = await startWorker({ role: "upstream" });
  const ports: Partial<Record<Target, number>> = { direct: upstream.port };
  const workers: Partial<Record<Target, Worker>> = {};
  for (const role of roles) {
    const started = await startWorker({ role, upstreamPort: upstream.port });
    ports[role] = started.port;
    workers[role] = started.worker;
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
    targets.map((t) => [t, { requests: 0, busy: 0, seconds: 0, p50: [], p99: [] }]),
  );
  for (let round = 0; round < rounds; round++) {
    const order = targets.map((_, i) => targets[(i + round) % targets.length]);
    for (const target of order) {
      const worker = workers[target];
      const busyBefore = worker ? await busyMs(worker) : 0;
      const result = await cannon(ports[target] as number, slice);
      const figure = figures.get(target) as Figure;
      figure.busy += worker ? (await busyMs(worker)) - busyBefore : 0;
      figure.requests += result.requests.total;
      figure.seconds += result.duration;
      figure.p50.push(result.latency.p50);
      figure.p99.push(result.latency.p99);
    }
  }
  const rps = (target: Target) => {
    const figure = figures.get(target) as Figure;
    return figure.requests / figure.seconds;
  };

  // The proxy thread's own CPU cost, free of the load generator's and the upstream's.
  const busyPerRequest = (target: Target) => {
    const figure = figures.get(target) as Figure;
    return (figure.busy * 1000) / figure.requests;
  };
  const f = (n: number) => n.toFixed(0);
  const r = (n: number) => n.toFixed(2);
  console.log(
    `wrapper-proxy: ${connections} connections, ${rounds} rounds x ${slice} s per target, small JSON answer, loopback`,
  );
  for (const target of targets) {
    const figure = figures.get(target) as Figure;
    const direct =
      target === "direct"
        ? ""
        : `, ${r(rps(target) / rps("direct"))}x direct, proxy thread CPU ${r(busyPerRequest(target))} µs/req`;
    console.log(
      `${LABELS[target].padEnd(20)}: ${f(rps(target)).padStart(6)} req/s, p50 ${figure.p50.join("/")} ms, ` +
        `p99 ${figure.p99.join("/")} ms${direct}`,
    );
  }
  if (ports.wrapper !== undefined) {
    const nodeProxies = (["http-proxy", "fastify"] as const).filter((t) => ports[t] !== undefined);
    if (nodeProxies.length > 0) {
      const best = nodeProxies.reduce((a, b) => (rps(a) >= rps(b) ? a : b));
      console.log(
        `wrapper / best Node proxy (${LABELS[best]}): ${r(rps("wrapper") / rps(best))}x (goal >= 2.5x); ` +
          nodeProxies.map((t) => `wrapper / ${LABELS[t]} ${r(rps("wrapper") / rps(t))}x`).join(", "),
      );
      // What a proxy with no HTTP work at all reaches against the same anchor: the ceiling of that ratio here.
      if (ports.relay !== undefined)
        console.log(`ceiling: raw TCP relay / best Node proxy ${r(rps("relay") / rps(best))}x`);
      const cheapest = nodeProxies.reduce((a, b) => (busyPerRequest(a) <= busyPerRequest(b) ? a : b));
      console.log(
        `proxy thread CPU per request: ${LABELS[cheapest]} / wrapper ${r(busyPerRequest(cheapest) / busyPerRequest("wrapper"))}x` +
          (ports.relay !== undefined
            ? `, relay / wrapper ${r(busyPerRequest("relay") / busyPerRequest("wrapper"))}x`
            : ""),
      );
    }
    if (ports.relay !== undefined)
      console.log(`wrapper / raw TCP relay: ${r(rps("wrapper") / rps("relay"))}x (goal >= 0.9x)`);

    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const directTimes: number[] = [];
    const proxiedTimes: number[] = [];
    const seqRounds = 6;
    for (let round = 0; round < seqRounds; round++) {
      directTimes.push(...(await sequential(upstream.port, Math.ceil(seqCount / seqRounds), agent)));
      proxiedTimes.push(...(await sequential(ports.wrapper, Math.ceil(seqCount / seqRounds), agent)));
    }
    agent.destroy();
    const dp50 = pct(directTimes, 50);
    const pp50 = pct(proxiedTimes, 50);
    console.log(
      `sequential ${directTimes.length} req each: direct p50 ${f(dp50)} µs p99 ${f(pct(directTimes, 99))} µs; ` +
        `wrapper p50 ${f(pp50)} µs p99 ${f(pct(proxiedTimes, 99))} µs; ` +
        `added p50 ${f(pp50 - dp50)} µs (goal < 1000 µs)`,
    );
  }
  await upstream.worker.terminate();
  for (const worker of Object.values(workers)) await worker?.terminate();
}

if (isMainThread) await main();
else await runWorker(workerData as Role);
