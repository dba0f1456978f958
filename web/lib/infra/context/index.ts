import { type Clock, createLogger, type Logger, systemClock } from "@svc/common";
import { connectDatabase, type Database, type DatabaseHandle } from "@svc/db";
import { loadWebConfig, type WebConfig } from "../config";

/** What every web service function needs: database, configuration, clock, logger. */
export interface WebContext {
  db: Database;
  config: WebConfig;
  clock: Clock;
  logger: Logger;
}

let current: (WebContext & { handle: DatabaseHandle }) | undefined;
let overrides: Partial<Pick<WebContext, "clock" | "config">> = {};

// web/server.ts and the route handlers Next bundles hold separate copies of this module; the
// configuration the server parsed at start reaches the handlers through the process's global object.
const STARTED_CONFIG = Symbol.for("svc.web.config");
type WithStartedConfig = typeof globalThis & { [STARTED_CONFIG]?: WebConfig };

/** web/server.ts: the configuration it parsed at start, used by every route handler of this process. */
export function setStartedWebConfig(config: WebConfig): void {
  (globalThis as WithStartedConfig)[STARTED_CONFIG] = config;
}

/**
 * The process-wide context, built once on first use from the configuration web/server.ts parsed at start
 * (the environment, when there is no server: tests, scripts). Route handlers pass it to the services;
 * services never read `process.env` or the wall clock themselves.
 */
export function webContext(): WebContext {
  if (!current) {
    const config = overrides.config ?? (globalThis as WithStartedConfig)[STARTED_CONFIG] ?? loadWebConfig();
    const handle = connectDatabase(config.DATABASE_URL, { applicationName: "svc-web" });
    current = {
      handle,
      db: handle.db,
      config,
      clock: overrides.clock ?? systemClock,
      logger: createLogger("web", config.LOG_LEVEL),
    };
  }
  return { ...current, ...overrides } as WebContext;
}

/** Tests: use this clock or configuration (applies to the next `webContext()` calls). */
export function overrideWebContext(next: Partial<Pick<WebContext, "clock" | "config">>): void {
  overrides = { ...overrides, ...next };
  if (current && next.config) {
    void current.handle.close();
    current = undefined;
  }
}

/** Tests: closes the pool. */
export async function closeWebContext(): Promise<void> {
  await current?.handle.close();
  current = undefined;
  overrides = {};
}
