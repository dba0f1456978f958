/**
 * The REAL backend with real agents: its HTTP routes, a job worker, and the LOCAL hosting driver, which runs
 * a real wrapper process per agent in front of the fake runtime (common/testing/fakes/agent-runtime.mjs),
 * with the runtime proxy's WebSocket upgrade. Used by ../local-e2e.test.ts and by the web's dashboard e2e
 * tests (web/e2e/testing/agent-backend.ts): a deploy made in the dashboard is provisioned for real; stats,
 * logs, restart, factory reset, heartbeat and the gateway status then act on a live agent.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { createApp } from "../../app";
import { loadBackendConfig } from "../../config";
import { createLocalHostingPlatform } from "../../hosting/local";
import { platformProcessors } from "../../jobs/registry";
import { createJobWorker } from "../../jobs/worker";
import { runtimeProxyUpgrade } from "../proxy";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);

export interface LocalAgentBackend {
  url: string;
  close(): Promise<void>;
}

/** Starts it on loopback against `DATABASE_URL`; `env` are the backend's variables (keys, secrets). */
export async function startLocalAgentBackend(env: Record<string, string>): Promise<LocalAgentBackend> {
  const dir = await mkdtemp(join(tmpdir(), "svc-dashboard-agents-"));
  const platform = createLocalHostingPlatform({
    agentsDir: dir,
    runtimeCommand: `${process.execPath} ${FAKE_RUNTIME}`,
    wrapperEnv: { LOG_LEVEL: "info", RUNTIME_HEALTH_POLL_MS: "50", FAKE_RUNTIME_READY_AFTER_MS: "50" },
    stopTimeoutMs: 5_000,
    statsSampleMs: 100,
  });
  const config = loadBackendConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: "silent",
    HOSTING_PROVIDER: "local",
    PROVISION_HEALTH_POLL_MS: "100",
    PROVISION_HEALTH_TIMEOUT_MS: "30000",
    ...env,
  });
  const logger = createLogger("dashboard-agent-backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, {
    applicationName: "dashboard-agent-backend",
    max: 5,
  });
  const server = createServer(createApp({ config, database, logger, platform }));
  const upgrade = runtimeProxyUpgrade({ db: database.db, config });
  server.on("upgrade", (req, socket, head) => {
    if (!upgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const worker = createJobWorker({
    connectionString: config.DATABASE_URL,
    processors: platformProcessors({
      db: database.db,
      dataEncryptionKey: config.DATA_ENCRYPTION_KEY as string,
      platform,
      config,
    }),
    logger,
    concurrency: 2,
    pollIntervalMs: 100,
    staleAfterMs: 600_000,
    shutdownGraceMs: 5_000,
  });
  await worker.start();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await worker.stop();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await platform.close();
      await database.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
