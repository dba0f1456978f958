/** A throwaway PostgreSQL cluster for a bench, in memory (/dev/shm). */
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
