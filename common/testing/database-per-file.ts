/**
 * vitest setup file: runs before each test file and gives it a fresh database cloned from the migrated
 * template, exported as DATABASE_URL; the database is dropped after the file.
 */
import pg from "pg";
import { afterAll, inject } from "vitest";
import { randomId } from "../src/ids";
import { withDatabase } from "./global-setup";

const setupError = inject("databaseSetupError");
if (setupError) throw new Error(`test database could not be prepared: ${setupError}`);
const adminUrl = inject("adminDatabaseUrl");
const template = inject("templateDatabase");
const database = `svc_t_${randomId(12)}`;

const admin = new pg.Client({ connectionString: adminUrl });
await admin.connect();
await admin.query(
  `create database ${admin.escapeIdentifier(database)} template ${admin.escapeIdentifier(template)} strategy file_copy`,
);
await admin.end();
process.env.DATABASE_URL = withDatabase(adminUrl, database);

afterAll(async () => {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  await client.query(`drop database if exists ${client.escapeIdentifier(database)} with (force)`);
  await client.end();
});
