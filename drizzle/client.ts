import { drizzle, type NodePgDatabase } from "drizzle-orm/node-postgres";
import pg from "pg";
import * as schema from "./schema/index";

export type Database = NodePgDatabase<typeof schema>;

export interface DatabaseHandle {
  db: Database;
  pool: pg.Pool;
  close(): Promise<void>;
}

/** A pool and a typed drizzle instance over it. Timestamps come back as `Date`, numerics as strings. */
export function connectDatabase(
  url: string,
  options: { max?: number; applicationName?: string } = {},
): DatabaseHandle {
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    application_name: options.applicationName,
  });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on("error", () => undefined);
  return { db: drizzle(pool, { schema }), pool, close: () => pool.end() };
}

export { schema };
