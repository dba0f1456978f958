import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema/index";

export type Database = NodePgDatabase<typeof schema>;

export interface DatabaseHandle {
  db: Database;
  pool: pg.Pool;
  close(): Promise<void>;
}

/**
 * How long a pool waits for a connection (a free one, or a new one to open) before the query fails. Without
 * it a full pool or an unreachable server makes every request wait forever; with it the request fails.
 */
export const DATABASE_CONNECTION_TIMEOUT_MS = 10_000;

/** A pool and a typed drizzle instance over it. Timestamps come back as `Date`, numerics as strings. */
export function connectDatabase(
  url: string,
  options: { max?: number; applicationName?: string; connectionTimeoutMs?: number } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? DATABASE_CONNECTION_TIMEOUT_MS,
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on("error", () => undefined);
  return { db: drizzle(pool, { schema }), pool, close: () => pool.end() };
}

export { schema };
