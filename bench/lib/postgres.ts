/** A throwaway PostgreSQL cluster for a bench, in memory (/dev/shm). */
import { readdirSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { freePort, randomId } from "../../common/src/index";
import { startEmbeddedPostgres } from "../../drizzle/embedded";

export type BenchCluster = Awaited<ReturnType<typeof startEmbeddedPostgres>>;

/** Starts an ephemeral cluster in `/dev/shm/svc-bench-<name>-*`; `stop` removes it. */
export async function startBenchPostgres(
  name: string,
): Promise<{ cluster: BenchCluster; stop(): Promise<void> }> {
  const dir = await mkdtemp(join("/dev/shm", `svc-bench-${name}-`));
  await chmod(dir, 0o755);
  const cluster = await startEmbeddedPostgres({
    dataDir: join(dir, "data"),
    port: await freePort(),
    password: randomId(16),
    ephemeral: true,
  });
  return {
    cluster,
    async stop() {
      await cluster.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * CPU time (user + system, ms) the cluster's processes have used so far (Linux /proc, 10 ms ticks): the
 * postmaster, its live children (backends, background workers) and the children it has reaped.
 */
export function clusterCpuMs(cluster: BenchCluster): number {
  const postmaster = Number(readFileSync(join(cluster.dataDir, "postmaster.pid"), "utf8").split("\n")[0]);
  let ticks = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "latin1");
    } catch {
      continue; // gone meanwhile
    }
    // After the command's closing parenthesis: state, ppid, … utime (11), stime (12), cutime (13), cstime (14).
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const own = Number(fields[11]) + Number(fields[12]);
    if (Number(entry) === postmaster) ticks += own + Number(fields[13]) + Number(fields[14]);
    else if (Number(fields[1]) === postmaster) ticks += own;
  }
  return ticks * 10;
}
