/**
 * Wrapper proxy overhead, each figure beside its anchor from the same run:
 * a loopback upstream (node:http, small JSON answer) in one worker thread, the wrapper's runtime proxy in
 * front of it in another, the load generator in the main thread.
 * 1. Throughput: autocannon, same connections and duration, direct, then proxied, then direct again (the
 *    better direct run is the anchor); requests/s, p50 and p99 (autocannon's ms resolution).
 * 2. Added latency: sequential keep-alive requests, direct and proxied interleaved in rounds, p50/p99 in µs.
 * Knobs: BENCH_CONNECTIONS (10), BENCH_DURATION seconds (8), BENCH_SEQUENTIAL (3000).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { isMainThread, parentPort, Worker, workerData } from "node:worker_threads";
import autocannon from "autocannon";

type Role = { role: "upstream" } | { role: "proxy"; upstreamPort: number };

async function runWorker(data: Role): Promise<void> {
  let server: http.Server;
  if (data.role === "upstream") {
    const body = JSON.stringify({ ok: true, state: "running", uptime: 42, ts: "2026-01-01T00:00:00.000Z" });
    server = http.createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  } else {
    const { createRuntimeProxy } = await import("../wrapper/src/proxy");
    const proxy = createRuntimeProxy({ port: data.upstreamPort });
    server = http.createServer(proxy.http);
    server.on("upgrade", proxy.upgrade);
  }
  server.keepAliveTimeout = 60_000;
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
      const req = http.get({ host: "127.0.0.1", port, path: "/api/status", agent }, (res) => {
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
  const proxied = await startWorker({ role: "proxy", upstreamPort: upstream.port });

  const cannon = async (port: number) => {
    const result = await autocannon({ url: `http://127.0.0.1:${port}/api/status`, connections, duration });
    if (result.non2xx > 0 || result.errors > 0)
      throw new Error(`errors: ${result.non2xx} non-2xx, ${result.errors}`);
    return { rps: result.requests.average, p50: result.latency.p50, p99: result.latency.p99 };
  };
  // Warm both paths (JIT, keep-alive sockets) before measuring.
  await autocannon({ url: `http://127.0.0.1:${proxied.port}/api/status`, connections, duration: 1 });

  const direct1 = await cannon(upstream.port);
  const through = await cannon(proxied.port);
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
  console.log(`proxied         : ${f(through.rps)} req/s, p50 ${through.p50} ms, p99 ${through.p99} ms`);
  console.log(`direct   (run 2): ${f(direct2.rps)} req/s, p50 ${direct2.p50} ms, p99 ${direct2.p99} ms`);
  console.log(
    `throughput ratio proxied/direct(best): ${(through.rps / direct.rps).toFixed(2)} (goal >= 0.70); ` +
      `p50 ${through.p50} vs ${direct.p50} ms, p99 ${through.p99} vs ${direct.p99} ms`,
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
}

if (isMainThread) await main();
else await runWorker(workerData as Role);
