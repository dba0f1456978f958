import { fileURLToPath } from "node:url";
import { drizzle } from "drizzle-orm/node-postgres";
import { migrate } from "drizzle-orm/node-postgres/migrator";
import pg from "pg";

/**
 * The committed SQL migrations made by drizzle-kit. In an entry point of its own (`@svc/db/migrate`) that the
 * web never imports: its bundler cannot bundle `new URL("./migrations", import.meta.url)`.
 */
export const migrationsFolder = fileURLToPath(new URL("./migrations", import.meta.url));

/** Any fixed number shared by every process that migrates: serialises concurrent starts. */
const MIGRATION_LOCK = 7_140_319_002;

/**
 * Applies every migration not yet applied, under an advisory lock so two processes starting together do
 * not race. Returns how many were applied.
 */
export async function migrateDatabase(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url, application_name: "svc-migrate" });
  await client.connect();
  try {
    await client.query("select pg_advisory_lock($1)", [MIGRATION_LOCK]);
    const before = await countApplied(client);
    await migrate(drizzle(client), { migrationsFolder, migrationsSchema: "drizzle" });
    return (await countApplied(client)) - before;
  } finally {
    await client.query("select pg_advisory_unlock($1)", [MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

async function countApplied(client: pg.Client): Promise<number> {
  const exists = await client.query("select to_regclass('drizzle.__drizzle_migrations') as t");
  if (!exists.rows[0]?.t) return 0;
  const { rows } = await client.query("select count(*)::int as n from drizzle.__drizzle_migrations");
  return rows[0].n as number;
}
