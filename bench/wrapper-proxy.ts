/**
 * Wrapper proxy overhead, each figure beside its anchors from the same run:
 * a loopback upstream (node:http, small JSON answer) in one worker thread; in front of it, in another, the
 * wrapper's real request listener (`createWrapperHandler`: own routes through Express, everything else to
 * the runtime proxy; its supervisor is not started, the proxy does not need it) and, as a second anchor, a
 * raw TCP relay (no HTTP at all: the most any proxy process can do on this machine); the load generator in
 * the main thread.
 * 1. Throughput: autocannon, same connections and duration: direct, through the wrapper, through the relay,
 *    direct again (the better direct run is the anchor); requests/s, p50 and p99 (ms resolution).
 * 2. Added latency: sequential keep-alive requests, direct and proxied interleaved in rounds, p50/p99 in µs.
 * Knobs: BENCH_CONNECTIONS (10), BENCH_DURATION seconds (8), BENCH_SEQUENTIAL (3000).
 */
import { mkdtemp } from "node:fs/promises";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import autocannon from "autocannon";

type Role = { role: "upstream" } | { role: "wrapper" | "relay"; upstreamPort: number };
const PATH = "/v1/models";

async function runWorker(data: Role): Promise<void> {
  let server: http.Server | net.Server;
  if (data.role === "upstream") {
    const body = JSON.stringify({ ok: true, state: "running", uptime: 42, ts: "2026-01-01T00:00:00.000Z" });
    const upstream = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
    upstream.keepAliveTimeout = 60_000;
    server = upstream;
  } else if (data.role === "relay") {
    server = net.createServer((client) => {
      const upstream = net.connect(data.upstreamPort, "127.0.0.1");
      client.setNoDelay(true);
      upstream.setNoDelay(true);
      client.pipe(upstream).on("error", () => client.destroy());
      upstream.pipe(client).on("error", () => upstream.destroy());
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
  } else {
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
      RUNTIME_PORT: String(data.upstreamPort),
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
      }),
    );
    wrapper.on("upgrade", proxy.upgrade);
    wrapper.keepAliveTimeout = 60_000;
    server = wrapper;
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  parentPort?.postMessage((server.address() as AddressInfo).port);
}

function startWorker(data: Role): Promise<{ port: number; worker: Worker }> {
  // Node 20 workers do not inherit tsx's loader: register it in the worker, then load this file.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(import.meta.url)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: data });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ port, worker }));
    worker.once("error", reject);
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

async function main(): Promise<void> {
  const connections = Number(process.env.BENCH_CONNECTIONS ?? 10);
  const duration = Number(process.env.BENCH_DURATION ?? 8);
  const seqCount = Number(process.env.BENCH_SEQUENTIAL ?? 3000);
  const upstream = await startWorker({ role: "upstream" });
  const proxied = await startWorker({ role: "wrapper", upstreamPort: upstream.port });
  const relay = await startWorker({ role: "relay", upstreamPort: upstream.port });

  const cannon = async (port: number) => {
    const result = await autocannon({ url: `http://127.0.0.1:${port}${PATH}`, connections, duration });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`errors: ${result.non2xx} non-2xx, ${result.errors}`);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
  };
  // Warm both paths (JIT, keep-alive sockets) before measuring.
  await autocannon({ url: `http://127.0.0.1:${proxied.port}${PATH}`, connections, duration: 1 });
  await autocannon({ url: `http://127.0.0.1:${relay.port}${PATH}`, connections, duration: 1 });

  const direct1 = await cannon(upstream.port);
  const through = await cannon(proxied.port);
  const relayed = await cannon(relay.port);
  const direct2 = await cannon(upstream.port);
  const direct = direct1.rps >= direct2.rps ? direct1 : direct2;

  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const directTimes: number[] = [];
  const proxiedTimes: number[] = [];
  const rounds = 6;
  for (let round = 0; round < rounds; round++) {
    directTimes.push(...(await sequential(upstream.port, Math.ceil(seqCount / rounds), agent)));
    proxiedTimes.push(...(await sequential(proxied.port, Math.ceil(seqCount / rounds), agent)));
  }
  agent.destroy();

  const f = (n: number) => n.toFixed(0);
  console.log(`wrapper-proxy: ${connections} connections x ${duration} s, small JSON answer, loopback`);
  console.log(`direct   (run 1): ${f(direct1.rps)} req/s, p50 ${direct1.p50} ms, p99 ${direct1.p99} ms`);
  console.log(`wrapper         : ${f(through.rps)} req/s, p50 ${through.p50} ms, p99 ${through.p99} ms`);
  console.log(`raw TCP relay   : ${f(relayed.rps)} req/s, p50 ${relayed.p50} ms, p99 ${relayed.p99} ms`);
  console.log(`direct   (run 2): ${f(direct2.rps)} req/s, p50 ${direct2.p50} ms, p99 ${direct2.p99} ms`);
  console.log(
    `throughput ratio proxied/direct(best): ${(through.rps / direct.rps).toFixed(2)} (goal >= 0.70); ` +
      `p50 ${through.p50} vs ${direct.p50} ms, p99 ${through.p99} vs ${direct.p99} ms`,
  );
  console.log(
    `ceiling on this machine: raw relay/direct ${(relayed.rps / direct.rps).toFixed(2)}; ` +
      `wrapper/raw relay ${(through.rps / relayed.rps).toFixed(2)}`,
  );
  const dp50 = pct(directTimes, 50);
  const pp50 = pct(proxiedTimes, 50);
  console.log(
    `sequential ${directTimes.length} req each: direct p50 ${f(dp50)} µs p99 ${f(pct(directTimes, 99))} µs; ` +
      `proxied p50 ${f(pp50)} µs p99 ${f(pct(proxiedTimes, 99))} µs; ` +
      `added p50 ${f(pp50 - dp50)} µs (goal < 1000 µs), ratio ${(pp50 / dp50).toFixed(2)}`,
  );
  await upstream.worker.terminate();
  await proxied.worker.terminate();
  await relay.worker.terminate();
}

if (isMainThread) await main();
else await runWorker(workerData as Role);
