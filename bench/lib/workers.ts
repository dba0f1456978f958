/** Bench roles run in worker threads: each worker loads its bench file and posts back the port it listens on. */
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";

/** Starts `moduleUrl` (the caller's `import.meta.url`) in a worker with `data`; resolves with its port. */
export function startBenchWorker(
  moduleUrl: string,
  data: unknown,
): Promise<{ port: number; worker: Worker }> {
  // Node 20 workers do not inherit tsx's loader: register it in the worker, then load the module.
  const bootstrap = `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  const worker = new Worker(bootstrap, { eval: true, workerData: data });
  return new Promise((resolve, reject) => {
    worker.once("message", (port: number) => resolve({ port, worker }));
    worker.once("error", reject);
  });
}

/**
 * CPU time (user + system, ms) of the calling thread, from Linux's /proc/thread-self/stat (clock ticks of
 * 10 ms; Node 20 has no per-thread CPU clock). Elsewhere, the event loop's busy wall time.
 */
export function threadCpuMs(): number {
  try {
    return statCpuMs("/proc/thread-self/stat");
  } catch {
    return performance.eventLoopUtilization().active;
  }
}

/** CPU time (user + system, ms) of process `pid`, every thread of it (Linux /proc, 10 ms ticks). */
export function processCpuMs(pid: number): number {
  return statCpuMs(`/proc/${pid}/stat`);
}

/** utime + stime of a /proc `stat` file: after the command's closing parenthesis, fields 11 and 12. */
function statCpuMs(path: string): number {
  const stat = readFileSync(path, "latin1");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}
