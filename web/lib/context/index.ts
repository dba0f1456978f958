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

/**
 * The process-wide context, built once on first use from the environment. Route handlers pass it to the
 * services; services never read `process.env` or the wall clock themselves.
 */
export function webContext(): WebContext {
  if (!current) {
    const config = overrides.config ?? loadWebConfig();
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
