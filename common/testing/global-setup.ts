/**
 * vitest global setup: one PostgreSQL for the whole run (embedded unless TEST_DATABASE_URL is set), one
 * template database migrated once. Each test file then gets its own clone (see database-per-file.ts).
 */

import { existsSync } from "node:fs";
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { randomId } from "../src/ids";
import { freePort } from "../src/net";

declare module "vitest" {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    /** Set when the database could not be prepared: every file then fails with it (and is counted). */
    databaseSetupError: string;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const cleanups: Array<() => Promise<void>> = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  try {
    let adminUrl = process.env.TEST_DATABASE_URL;
    if (!adminUrl) {
      // Imported lazily so nothing database-related loads when a run needs no database.
      const { startEmbeddedPostgres } = await import("@svc/db/embedded");
      const base = existsSync("/dev/shm") ? "/dev/shm" : tmpdir();
      const dir = await mkdtemp(join(base, "svc-test-pg-"));
      await chmod(dir, 0o755);
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      const cluster = await startEmbeddedPostgres({
        dataDir: join(dir, "data"),
        port: await freePort(),
        password: randomId(24),
        ephemeral: true,
      });
      cleanups.push(async () => {
        await cluster.stop();
        if (!cluster.dataDir.startsWith(dir)) await rm(cluster.dataDir, { recursive: true, force: true });
      });
      adminUrl = cluster.url();
    }

    const templateDatabase = `svc_tpl_${randomId(10)}`;
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${admin.escapeIdentifier(templateDatabase)}`);
    await admin.end();
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`drop database if exists ${client.escapeIdentifier(templateDatabase)} with (force)`);
      await client.end();
    });

    const { migrateDatabase } = await import("@svc/db/migrate");
    await migrateDatabase(withDatabase(adminUrl, templateDatabase));

    project.provide("adminDatabaseUrl", adminUrl);
    project.provide("templateDatabase", templateDatabase);
    project.provide("databaseSetupError", "");
    return cleanup;
  } catch (err) {
    // Not rethrown: vitest would stop before any reporter could count it. Each file fails instead.
    await cleanup();
    project.provide("adminDatabaseUrl", "");
    project.provide("templateDatabase", "");
    project.provide("databaseSetupError", err instanceof Error ? err.message || String(err) : String(err));
    return async () => {};
  }
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
