import { join } from "node:path";
import { freePort } from "@svc/common";
import { type EmbeddedPostgres, startEmbeddedPostgres } from "@svc/db/embedded";
import { migrateDatabase } from "@svc/db/migrate";
import pg from "pg";
import type { LauncherConfig } from "./config";

export interface OpenedDatabase {
  url: string;
  /** For the start banner; never contains a password. */
  description: string;
  cluster?: EmbeddedPostgres;
}

const EMBEDDED_DATABASE = "agent_platform";

/** DATABASE_URL when set, else embedded PostgreSQL under the data dir; migrations applied either way. */
export async function openDatabase(
  config: LauncherConfig,
  password: string,
  say: (line: string) => void,
): Promise<OpenedDatabase> {
  if (config.DATABASE_URL) {
    const applied = await migrateDatabase(config.DATABASE_URL).catch((err: Error) => {
      throw new Error(
        `cannot migrate DATABASE_URL (${new URL(config.DATABASE_URL as string).host}): ${err.message}`,
      );
    });
    say(`migrations: ${applied} applied`);
    const { host, pathname } = new URL(config.DATABASE_URL);
    return { url: config.DATABASE_URL, description: `PostgreSQL at ${host}${pathname} (DATABASE_URL)` };
  }

  const port = config.EMBEDDED_PG_PORT || (await freePort());
  const cluster = await startEmbeddedPostgres({ dataDir: join(config.dataDir, "postgres"), port, password });
  try {
    const admin = new pg.Client({ connectionString: cluster.url() });
    await admin.connect();
    const exists = await admin.query("select 1 from pg_database where datname = $1", [EMBEDDED_DATABASE]);
    if (exists.rowCount === 0)
      await admin.query(`create database ${admin.escapeIdentifier(EMBEDDED_DATABASE)}`);
    await admin.end();
    const url = cluster.url(EMBEDDED_DATABASE);
    const applied = await migrateDatabase(url);
    say(
      `embedded PostgreSQL on 127.0.0.1:${port}, data in ${cluster.dataDir}; migrations: ${applied} applied`,
    );
    return {
      url,
      cluster,
      description: `embedded PostgreSQL at 127.0.0.1:${port}/${EMBEDDED_DATABASE} (data in ${cluster.dataDir})`,
    };
  } catch (err) {
    await cluster.stop();
    throw err;
  }
}
