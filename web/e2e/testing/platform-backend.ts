/**
 * The REAL backend as `npm start` runs it, in-process on loopback: its request listener (the classify hook
 * ahead of the app), the permission bus (LISTEN/NOTIFY) and WebSocket, and — unless `worker: false` — its
 * job worker, so chat jobs really run. For pages that need more than `useDashboardStack`'s HTTP-only backend
 * (chat, live approvals); the web points its BACKEND_URL here (`withoutBackend` + `webEnv`).
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { createBackendListener } from "../../../backend/src/app";
import { loadBackendConfig } from "../../../backend/src/config";
import { platformProcessors } from "../../../backend/src/jobs/registry";
import { createJobWorker } from "../../../backend/src/jobs/worker";
import { createPermissionBus } from "../../../backend/src/permissions/bus";
import { permissionSocketUpgrade } from "../../../backend/src/permissions/socket";
import { E2E_HMAC_SECRET, E2E_INTERNAL_API_KEY } from "./dashboard";

/** The key that seals agents' gateway tokens; the web needs the same one to accept chat messages. */
export const E2E_DATA_ENCRYPTION_KEY = "5e".repeat(32);

export interface PlatformBackend {
  url: string;
  close(): Promise<void>;
}

export async function startPlatformBackend(
  env: Record<string, string> = {},
  { worker: withWorker = true }: { worker?: boolean } = {},
): Promise<PlatformBackend> {
  const config = loadBackendConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    INTERNAL_API_KEY: E2E_INTERNAL_API_KEY,
    HMAC_SECRET: E2E_HMAC_SECRET,
    DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY,
    LOG_LEVEL: "silent",
    ...env,
  });
  const logger = createLogger("e2e-backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, { applicationName: "e2e-backend", max: 8 });
  const bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
  await bus.start();
  const server = createServer(createBackendListener({ config, database, logger, permissionBus: bus }));
  const sockets = permissionSocketUpgrade({ db: database.db, bus, config, logger });
  server.on("upgrade", (req, socket, head) => {
    if (!sockets(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const worker = withWorker
    ? createJobWorker({
        connectionString: config.DATABASE_URL,
        processors: platformProcessors({ db: database.db, dataEncryptionKey: config.DATA_ENCRYPTION_KEY }),
        logger,
        concurrency: 2,
        pollIntervalMs: 200,
        staleAfterMs: config.JOB_STALE_AFTER_MS,
        shutdownGraceMs: 2_000,
      })
    : undefined;
  await worker?.start();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await worker?.stop();
      sockets.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await bus.stop();
      await database.close();
    },
  };
}
