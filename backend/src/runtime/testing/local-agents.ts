/**
 * The REAL backend with real agents: its HTTP routes (with the runtime proxy's WebSocket upgrade), a job
 * worker, and the LOCAL hosting driver, which runs a real wrapper process per agent in front of a runtime:
 * the fake runtime (common/testing/fakes/agent-runtime.mjs) unless told otherwise. With `permissions` it is
 * the whole backend listener `server.ts` serves (the classify hook ahead of Express, the LISTEN/NOTIFY
 * permission bus). Used by ../local-e2e.test.ts, ../openclaw-e2e.test.ts (with `managedRuntime`) and
 * the web's dashboard e2e tests (web/e2e/testing/agent-backend.ts): a deploy made in the dashboard is
 * provisioned for real; stats, logs, restart, factory reset, heartbeat and the gateway status then act on a
 * live agent.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { createApp, createBackendListener } from "../../app";
import { loadBackendConfig } from "../../config";
import { createLocalHostingPlatform } from "../../hosting/local";
import { platformProcessors } from "../../job-processors";
import { createPermissionBus, type PermissionBus } from "../../permissions/bus";
import { permissionSocketUpgrade } from "../../permissions/socket";
import { createJobWorker } from "../../platform-jobs/worker";
import { runtimeProxyUpgrade } from "../proxy";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);

export interface LocalAgentOptions {
  /** The managed OpenClaw instead of the fake runtime (e.g. `{version, runtimesDir: process.env.RUNTIMES_DIR}`): the real runtime. */
  managedRuntime?: { version: string; runtimesDir: string };
  /** Added to the wrappers' environment (over LOG_LEVEL, RUNTIME_HEALTH_POLL_MS, FAKE_RUNTIME_READY_AFTER_MS). */
  wrapperEnv?: Record<string, string>;
  /** Where the agents live; a temporary directory (removed on close) unless given. */
  agentsDir?: string;
  /** The port to listen on (a free one unless given). */
  port?: number;
  /** Serve the classify hook and the permission routes over a running permission bus. */
  permissions?: boolean;
  /** With `permissions`: also the permission WebSocket (`/ws/permissions`). */
  permissionSockets?: boolean;
  /** Without a hosting platform (false): no agents are run; lifecycle operations answer 503. */
  hosting?: boolean;
  /** Without the job worker (false): enqueued jobs stay queued. */
  worker?: boolean;
}

export interface LocalAgentBackend {
  url: string;
  close(): Promise<void>;
}

/** Starts it on loopback against `DATABASE_URL`; `env` are the backend's variables (keys, secrets). */
export async function startLocalAgentBackend(
  env: Record<string, string>,
  options: LocalAgentOptions = {},
): Promise<LocalAgentBackend> {
  const hosting = options.hosting !== false;
  const ownDir = !hosting || options.agentsDir ? null : await mkdtemp(join(tmpdir(), "svc-local-agents-"));
  const agentsDir = options.agentsDir ?? ownDir;
  const platform = hosting
    ? createLocalHostingPlatform({
        agentsDir: agentsDir as string,
        ...(options.managedRuntime
          ? { managedRuntime: options.managedRuntime }
          : { runtimeCommand: `${process.execPath} ${FAKE_RUNTIME}` }),
        wrapperEnv: {
          LOG_LEVEL: "info",
          RUNTIME_HEALTH_POLL_MS: "50",
          FAKE_RUNTIME_READY_AFTER_MS: "50",
          ...options.wrapperEnv,
        },
        stopTimeoutMs: 5_000,
        statsSampleMs: 100,
      })
    : undefined;
  const config = loadBackendConfig({
    DATABASE_URL: process.env.DATABASE_URL,
    LOG_LEVEL: "silent",
    HOSTING_PROVIDER: "local",
    // The classifier judges an agent's paths in its directory there (permissions/service.ts).
    ...(agentsDir ? { LOCAL_AGENTS_DIR: agentsDir } : {}),
    PROVISION_HEALTH_POLL_MS: "100",
    PROVISION_HEALTH_TIMEOUT_MS: "30000",
    ...env,
  });
  const logger = createLogger("local-agent-backend", config.LOG_LEVEL);
  const database = connectDatabase(config.DATABASE_URL, { applicationName: "local-agent-backend", max: 5 });
  let bus: PermissionBus | undefined;
  let listener: RequestListener;
  if (options.permissions) {
    bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
    await bus.start();
    listener = createBackendListener({ config, database, logger, platform, permissionBus: bus });
  } else {
    listener = createApp({ config, database, logger, platform });
  }
  const server = createServer(listener);
  const proxyUpgrade = runtimeProxyUpgrade({ db: database.db, config });
  const sockets =
    bus && options.permissionSockets
      ? permissionSocketUpgrade({ db: database.db, bus, config, logger })
      : undefined;
  server.on("upgrade", (req, socket, head) => {
    if (sockets?.(req, socket, head)) return;
    if (!proxyUpgrade(req, socket, head)) socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, "127.0.0.1", resolve));
  const worker =
    options.worker === false
      ? undefined
      : createJobWorker({
          connectionString: config.DATABASE_URL,
          processors: platformProcessors({
            db: database.db,
            dataEncryptionKey: config.DATA_ENCRYPTION_KEY as string,
            platform,
            config,
            chatTimeoutMs: config.CHAT_JOB_TIMEOUT_MS,
          }),
          logger,
          concurrency: 2,
          pollIntervalMs: 100,
          staleAfterMs: 600_000,
          shutdownGraceMs: 5_000,
        });
  await worker?.start();
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await worker?.stop();
      await platform?.close();
      sockets?.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await bus?.stop();
      await database.close();
      if (ownDir) await rm(ownDir, { recursive: true, force: true });
    },
  };
}
