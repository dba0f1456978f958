/**
 * `GET /metrics`: the process's Prometheus metrics; the queue's and the watchdog's gauges are read from the
 * database first. With METRICS_TOKEN set, the scraper sends it as Bearer.
 */
import { metricsHandler } from "@svc/common/metrics/index";
import type { DatabaseHandle } from "@svc/db";
import { Router } from "express";
import type { Logger } from "pino";
import { refreshJobGauges } from "../platform-jobs/metrics";
import { databaseClock } from "../platform-jobs/sql";
import { refreshWatchdogGauges } from "../watchdog/metrics";

export function metricsRoutes(deps: { database: DatabaseHandle; token?: string; logger: Logger }): Router {
  const { database, logger } = deps;
  const router = Router();
  router.get(
    "/metrics",
    metricsHandler({
      token: deps.token,
      refresh: async () => {
        await Promise.all([
          refreshJobGauges(database.pool, databaseClock),
          refreshWatchdogGauges(database.db),
        ]);
      },
      onRefreshError: (err) => logger.warn({ err }, "metrics: reading the queue or watchdog gauges failed"),
    }),
  );
  return router;
}
