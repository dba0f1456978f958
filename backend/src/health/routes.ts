import { type Clock, systemClock } from "@svc/common";
import { Router } from "express";
import type pg from "pg";
import type { HostingProviderName } from "../hosting/types";
import {
  checkBackendHealth,
  createProvisioningCheck,
  type HostingPingSource,
  type ProvisioningCheckOptions,
} from "./service";

export interface HealthRouteDeps extends Omit<ProvisioningCheckOptions, "clock"> {
  pool: pg.Pool;
  /** The hosting driver (or its resolver); without it provisioning is reported disabled. */
  platform?: HostingPingSource;
  /** HOSTING_PROVIDER as configured; defaults to the provider of a `platform` object. */
  hostingProvider?: HostingProviderName;
  clock?: Clock;
}

/**
 * `GET /health` (no `/api` prefix): 200 when the database answers, 503 otherwise; provisioning (the hosting
 * platform's cached ping) is reported but never turns the answer into an error.
 */
export function healthRoutes(deps: HealthRouteDeps | pg.Pool): Router {
  // A bare pool is the form app.ts used before the hosting driver existed; it reports no platform.
  const resolved: HealthRouteDeps = "pool" in deps ? deps : { pool: deps };
  const { pool, platform, hostingProvider: configured, clock = systemClock, ...options } = resolved;
  const hostingProvider = configured ?? (platform && typeof platform === "object" ? platform.provider : null);
  const provisioning = createProvisioningCheck(platform, { clock, ...options });
  const router = Router();
  router.get("/health", async (_req, res) => {
    const health = await checkBackendHealth({ pool, hostingProvider, provisioning }, clock.now());
    res.status(health.status === "ok" ? 200 : 503).json(health);
  });
  return router;
}
