/**
 * The backend process. Default: the HTTP API plus a job worker (JOB_WORKER_ENABLED). With `--worker` it is
 * a worker process only (no HTTP), for running workers apart from the API.
 */
import { createServer } from "node:http";
import { createLogger, exitOnStartupError, listen } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { createApp } from "./app";
import { loadBackendConfig } from "./config";
import { platformProcessors } from "./jobs/registry";
import { createJobWorker, type JobWorker } from "./jobs/worker";

const workerOnly = process.argv.includes("--worker");

try {
  const config = loadBackendConfig();
  const logger = createLogger(workerOnly ? "worker" : "backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, {
    applicationName: workerOnly ? "svc-worker" : "svc-backend",
    max: Math.max(10, config.JOB_WORKER_CONCURRENCY + 4),
  });
  let worker: JobWorker | undefined;
  if (workerOnly || config.JOB_WORKER_ENABLED) {
    worker = createJobWorker({
      connectionString: config.DATABASE_URL,
      processors: platformProcessors({ db: database.db, dataEncryptionKey: config.DATA_ENCRYPTION_KEY }),
      logger,
      concurrency: config.JOB_WORKER_CONCURRENCY,
      lanes: config.JOB_WORKER_LANES,
      pollIntervalMs: config.JOB_POLL_INTERVAL_MS,
      staleAfterMs: config.JOB_STALE_AFTER_MS,
      shutdownGraceMs: config.JOB_SHUTDOWN_GRACE_MS,
    });
  }
  const server = workerOnly ? undefined : createServer(createApp({ config, database, logger }));
  if (server) {
    await listen(server, config.BACKEND_PORT, config.HOST);
    logger.info({ port: config.BACKEND_PORT, host: config.HOST }, "backend listening");
  }
  await worker?.start();
  if (worker) logger.info({ concurrency: config.JOB_WORKER_CONCURRENCY }, "job worker started");

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    server?.close();
    server?.closeIdleConnections();
    setTimeout(() => server?.closeAllConnections(), 5_000).unref();
    await worker?.stop().catch((err: unknown) => logger.error({ err }, "worker stop failed"));
    await database.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
} catch (err) {
  exitOnStartupError(workerOnly ? "worker" : "backend", err);
}
