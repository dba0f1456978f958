/**
 * Preloaded into a server a bench starts (`NODE_OPTIONS=--import=<this file>`, see cpuProfileEnv), since
 * Node refuses `--cpu-prof` in NODE_OPTIONS: profiles the process from its start and writes
 * `<BENCH_CPU_PROFILE_DIR>/<pid>.cpuprofile` as it exits (a server stopped with SIGTERM exits normally).
 */
import { writeFileSync } from "node:fs";
import { Session } from "node:inspector";
import { join } from "node:path";

const dir = process.env.BENCH_CPU_PROFILE_DIR;
if (dir) {
  const session = new Session();
  session.connect();
  session.post("Profiler.enable");
  // Node's own --cpu-prof interval (1 ms is the inspector's default).
  session.post("Profiler.setSamplingInterval", { interval: 1000 });
  session.post("Profiler.start");
  process.once("exit", () => {
    // A session on the process's own thread answers synchronously, so this runs before the exit.
    session.post("Profiler.stop", (err, result) => {
      if (!err) writeFileSync(join(dir, `${process.pid}.cpuprofile`), JSON.stringify(result.profile));
    });
  });
}

/** The environment that makes a started server write its CPU profile into `dir`. */
export function cpuProfileEnv(dir: string): Record<string, string> {
  return {
    // Node 20 loads TypeScript through tsx, which the server's own `--import tsx` registers only after this.
    NODE_OPTIONS: `--import=tsx --import=${new URL(import.meta.url).pathname}`,
    BENCH_CPU_PROFILE_DIR: dir,
  };
}
