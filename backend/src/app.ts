import { requestLogger } from "@svc/common";
import type { DatabaseHandle } from "@svc/db";
import express, { type Express } from "express";
import type { Logger } from "pino";
import { adminRoutes } from "./admin/routes";
import { aiRoutes } from "./ai/routes";
import { apiKeyRoutes } from "./apikeys/routes";
import type { BackendConfig } from "./config";
import { healthRoutes } from "./health/routes";
import { errorMapper, notFound } from "./http/errors";
import { databaseClock } from "./jobs/queue";
import { platformJobRoutes } from "./jobs/routes";

export interface BackendDeps {
  config: BackendConfig;
  database: DatabaseHandle;
  logger: Logger;
}

/** Builds the backend app from its dependencies; `server.ts` starts it. */
export function createApp({ config, database, logger }: BackendDeps): Express {
  const app = express();
  app.disable("x-powered-by");
  app.use(requestLogger(logger));
  app.use(express.json({ limit: "1mb" }));
  app.use(healthRoutes(database.pool));
  app.use(apiKeyRoutes(database.db, { internalApiKey: config.INTERNAL_API_KEY }));
  app.use(
    platformJobRoutes(
      { db: database.pool, clock: databaseClock },
      { internalApiKey: config.INTERNAL_API_KEY },
    ),
  );
  app.use(adminRoutes(database.db, config));
  app.use(aiRoutes(database.db, config));
  app.use(notFound);
  app.use(errorMapper(logger));
  return app;
}
