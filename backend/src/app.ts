import type { RequestListener } from "node:http";
import { type Clock, requestLogger } from "@svc/common";
import { httpMetricsMiddleware, observeHttpRequest } from "@svc/common/metrics/index";
import type { DatabaseHandle } from "@svc/db";
import express, { type Express } from "express";
import type { Logger } from "pino";
import { adminRoutes } from "./admin/routes";
import { aiBodyParsing, aiRoutes } from "./ai/routes";
import { apiKeyRoutes } from "./apikeys/routes";
import type { BackendConfig } from "./config";
import { healthRoutes } from "./health/routes";
import { errorMapper, notFound } from "./http/errors";
import { metricsRoutes } from "./metrics/routes";
import { openApiRoutes } from "./openapi";
import type { PermissionBus } from "./permissions/bus";
import { HOOK_CLASSIFY_PATH, hookClassifyHandler, hookRoutes } from "./permissions/hooks";
import { permissionRoutes } from "./permissions/routes";
import { platformJobRoutes } from "./platform-jobs/routes";
import { databaseClock } from "./platform-jobs/sql";
import { runtimeInstanceRoutes } from "./runtime/instances";
import type { PlatformSource } from "./runtime/platform";
import { runtimeProxyRoutes } from "./runtime/proxy";
import { agentOperationRoutes, runtimeVersionRoutes } from "./runtime/routes";
import { setupRoutes } from "./setup/routes";

export interface BackendDeps {
  config: BackendConfig;
  database: DatabaseHandle;
  logger: Logger;
  /** The hosting platform of the runtime operations (absent: they answer 503 not configured). */
  platform?: PlatformSource;
  /** Called after an operator (re)started an agent (the watchdog's reset hook). */
  onOperatorAction?: (agentId: string) => void;
  /** Cross-process permission events (started by server.ts); absent: the permission routes are not served. */
  permissionBus?: PermissionBus;
  /** The clock of the AI budgets' hour and day windows (tests move it); default the system clock. */
  clock?: Clock;
}

/**
 * The backend's request listener (what `server.ts` serves): the classify hook — the hot path, called
 * before every agent tool call — handed to its handler ahead of Express, everything else to the app.
 */
export function createBackendListener(deps: BackendDeps): RequestListener {
  const app = createApp(deps);
  const { permissionBus, logger } = deps;
  if (!permissionBus) return app;
  const classify = hookClassifyHandler({
    db: deps.database.db,
    bus: permissionBus,
    config: deps.config,
    logger,
  });
  const log = requestLogger(logger);
  return (req, res) => {
    const url = req.url ?? "";
    const query = url.indexOf("?");
    if (req.method !== "POST" || (query === -1 ? url : url.slice(0, query)) !== HOOK_CLASSIFY_PATH) {
      app(req, res);
      return;
    }
    // Logged and counted as the app logs and counts its routes, under the same route template.
    observeHttpRequest(req, res, () => HOOK_CLASSIFY_PATH);
    log(req, res, () => classify(req, res));
  };
}

/** Builds the backend app from its dependencies; `server.ts` starts it. */
export function createApp({
  config,
  database,
  logger,
  platform,
  onOperatorAction,
  permissionBus,
  clock,
}: BackendDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  // API answers are not revalidated by clients: no ETag hashing of every JSON body.
  app.set("etag", false);
  app.use(requestLogger(logger));
  app.use(httpMetricsMiddleware());
  // First: the classify hook runs before every agent tool call (the hot path) and parses its own body, so a
  // hook call meets no other router. The permission routes parse their own bodies too.
  if (permissionBus) {
    app.use(hookRoutes({ db: database.db, bus: permissionBus, config, logger }));
    app.use(permissionRoutes({ db: database.db, bus: permissionBus, config, logger }));
  }
  // Before the JSON parser: proxied request bodies stream through untouched.
  app.use(runtimeProxyRoutes({ db: database.db, config }));
  // Before the JSON parser: OpenAI's path of the AI proxy reads larger bodies and answers in OpenAI's shape.
  app.use(aiBodyParsing());
  app.use(express.json({ limit: "1mb" }));
  app.use(healthRoutes({ pool: database.pool, platform, hostingProvider: config.HOSTING_PROVIDER }));
  app.use(metricsRoutes({ database, token: config.METRICS_TOKEN, logger }));
  app.use(openApiRoutes());
  app.use(apiKeyRoutes(database.db, { internalApiKey: config.INTERNAL_API_KEY }));
  app.use(
    platformJobRoutes(
      { db: database.pool, clock: databaseClock },
      { internalApiKey: config.INTERNAL_API_KEY, hmacSecret: config.HMAC_SECRET },
    ),
  );
  app.use(adminRoutes(database.db, config));
  app.use(aiRoutes(database.db, config, clock));
  app.use(runtimeVersionRoutes(config));
  app.use(setupRoutes(config, platform));
  app.use(agentOperationRoutes({ db: database.db, config, platform, onOperatorAction }));
  app.use(runtimeInstanceRoutes(platform, { internalApiKey: config.INTERNAL_API_KEY }));
  app.use(notFound);
  app.use(errorMapper(logger));
  return app;
}
