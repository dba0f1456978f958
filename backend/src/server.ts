/**
 * The backend process. Default: the HTTP API plus a job worker (JOB_WORKER_ENABLED). With `--worker` it is
 * a worker process only (no HTTP), for running workers apart from the API.
 */
import { createServer } from "node:http";
import { createLogger, drainUnreadBodies, exitOnStartupError, listen } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { createBackendListener } from "./app";
import { loadBackendConfig } from "./config";
import { createHostingPlatform } from "./hosting/index";
import { platformProcessors } from "./job-processors";
import { createPermissionBus } from "./permissions/bus";
import { permissionSocketUpgrade } from "./permissions/socket";
import { createJobWorker, type JobWorker } from "./platform-jobs/worker";
import { runtimeProxyUpgrade } from "./runtime/proxy";
import { createTaskScheduler, type TaskScheduler } from "./scheduled-tasks/scheduler";
import { createWatchdogManager, resetAfterOperatorAction, type WatchdogManager } from "./watchdog/index";

const workerOnly = process.argv.includes("--worker");

try {
  const config = loadBackendConfig();
  const logger = createLogger(workerOnly ? "worker" : "backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, {
    applicationName: workerOnly ? "svc-worker" : "svc-backend",
    max: Math.max(10, config.JOB_WORKER_CONCURRENCY + 4),
  });
  // One hosting platform per process, shared by the API, the job processors and the watchdog.
  const platform = createHostingPlatform(config, { logger });
  const onOperatorAction = (agentId: string) => {
    resetAfterOperatorAction(database.db, agentId).catch((err: unknown) =>
      logger.warn({ err, agentId }, "watchdog reset after an operator action failed"),
    );
  };
  let worker: JobWorker | undefined;
  if (workerOnly || config.JOB_WORKER_ENABLED) {
    worker = createJobWorker({
      connectionString: config.DATABASE_URL,
      processors: platformProcessors({
        db: database.db,
        dataEncryptionKey: config.DATA_ENCRYPTION_KEY,
        platform,
        config,
        chatTimeoutMs: config.CHAT_JOB_TIMEOUT_MS,
      }),
      logger,
      concurrency: config.JOB_WORKER_CONCURRENCY,
      lanes: config.JOB_WORKER_LANES,
      pollIntervalMs: config.JOB_POLL_INTERVAL_MS,
      staleAfterMs: config.JOB_STALE_AFTER_MS,
      shutdownGraceMs: config.JOB_SHUTDOWN_GRACE_MS,
    });
  }
  // Permission events (requests, decisions) reach every API process through LISTEN/NOTIFY.
  const permissionBus = workerOnly
    ? undefined
    : createPermissionBus({ connectionString: config.DATABASE_URL, logger });
  await permissionBus?.start();
  const server = workerOnly
    ? undefined
    : createServer(
        // A body the backend will not read (over its limit) is thrown away, bounded: the client reads the 413.
        drainUnreadBodies(
          createBackendListener({ config, database, logger, platform, onOperatorAction, permissionBus }),
        ),
      );
  const upgradePermissions = permissionBus
    ? permissionSocketUpgrade({ db: database.db, bus: permissionBus, config, logger })
    : undefined;
  if (server) {
    // WebSocket upgrades: `/ws/permissions`, then an agent (`/api/runtime/proxy/:agentId/...`); any other
    // upgrade is refused.
    const upgradeRuntimeProxy = runtimeProxyUpgrade({ db: database.db, config });
    server.on("upgrade", (req, socket, head) => {
      if (upgradePermissions?.(req, socket, head)) return;
      if (!upgradeRuntimeProxy(req, socket, head)) socket.destroy();
    });
    await listen(server, config.BACKEND_PORT, config.HOST);
    logger.info({ port: config.BACKEND_PORT, host: config.HOST }, "backend listening");
  }
  // Local agents that were running come back (the API process only: two processes restoring the same
  // agents directory could start an agent twice).
  if (!workerOnly && platform.restoreRunning) {
    platform
      .restoreRunning()
      .then((ids) => ids.length > 0 && logger.info({ agents: ids }, "local agents restored"))
      .catch((err: unknown) => logger.error({ err }, "local agent restore failed"));
  }
  await worker?.start();
  if (worker) logger.info({ concurrency: config.JOB_WORKER_CONCURRENCY }, "job worker started");
  // Every backend process may run the watchdog: advisory locks give each agent exactly one watcher.
  let watchdog: WatchdogManager | undefined;
  if (config.WATCHDOG_ENABLED) {
    watchdog = createWatchdogManager({
      db: database.db,
      connectionString: config.DATABASE_URL,
      platform,
      config,
      logger,
      dataEncryptionKey: config.DATA_ENCRYPTION_KEY,
    });
    await watchdog.start(); // logs "watchdog started" with its owner id
  }
  // Every backend process may run the task scheduler: claims with FOR UPDATE SKIP LOCKED are exclusive.
  let scheduler: TaskScheduler | undefined;
  if (config.SCHEDULER_ENABLED) {
    scheduler = createTaskScheduler({
      pool: database.pool,
      dataEncryptionKey: config.DATA_ENCRYPTION_KEY,
      logger,
      pollMs: config.SCHEDULER_POLL_MS,
    });
    scheduler.start();
    logger.info({ pollMs: config.SCHEDULER_POLL_MS }, "task scheduler started");
  }

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    server?.close();
    server?.closeIdleConnections();
    setTimeout(() => server?.closeAllConnections(), 5_000).unref();
    // Upgraded sockets are not closed by server.close(): close them (1001) before the bus goes.
    upgradePermissions?.close();
    await permissionBus?.stop().catch((err: unknown) => logger.error({ err }, "permission bus stop failed"));
    await watchdog?.stop().catch((err: unknown) => logger.error({ err }, "watchdog stop failed"));
    await scheduler?.stop().catch((err: unknown) => logger.error({ err }, "scheduler stop failed"));
    await worker?.stop().catch((err: unknown) => logger.error({ err }, "worker stop failed"));
    // Local agents stop with the API process (their desired state stays running: the next start restores
    // them). A worker-only process leaves the agents it provisioned running; the API process adopts them.
    if (!workerOnly)
      await platform.close().catch((err: unknown) => logger.error({ err }, "hosting close failed"));
    await database.close().catch(() => undefined);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
} catch (err) {
  exitOnStartupError(workerOnly ? "worker" : "backend", err);
}
