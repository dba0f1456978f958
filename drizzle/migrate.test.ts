import { randomId } from "@svc/common";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { connectDatabase } from "./client";
import { migrateDatabase } from "./migrate";
import { users } from "./schema/index";

const adminUrl = new URL(process.env.DATABASE_URL as string);
const emptyName = `svc_empty_${randomId(8)}`;
const emptyUrl = new URL(adminUrl);
emptyUrl.pathname = `/${emptyName}`;

async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl.toString() });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

afterAll(() =>
  admin((c) => c.query(`drop database if exists ${c.escapeIdentifier(emptyName)} with (force)`)),
);

const EXPECTED_TABLES = [
  "users",
  "sessions",
  "idp_accounts",
  "passkeys",
  "passkey_challenges",
  "api_keys",
  "referral_credits",
  "processed_security_events",
  "rate_limit_windows",
  "agents",
  "heartbeat_settings",
  "platform_jobs",
  "permission_requests",
  "companies",
  "job_listings",
  "job_applications",
  "buddies",
  "scheduled_tasks",
  "files",
  "partner_inquiries",
  "agent_wallets",
  "payment_sessions",
  "user_rpc_configs",
  "radio_wallets",
  "ai_usage_hours",
];

describe("migrations", () => {
  it("apply to an empty database; a second run applies nothing and loses nothing", async () => {
    await admin((c) => c.query(`create database ${c.escapeIdentifier(emptyName)}`));
    const firstApplied = await migrateDatabase(emptyUrl.toString());
    expect(firstApplied).toBeGreaterThanOrEqual(1);

    const handle = connectDatabase(emptyUrl.toString());
    try {
      const { rows } = await handle.pool.query<{ table_name: string }>(
        "select table_name from information_schema.tables where table_schema = 'public'",
      );
      const tables = rows.map((r) => r.table_name);
      for (const table of EXPECTED_TABLES) expect(tables).toContain(table);

      await handle.db.insert(users).values({
        id: "usr_keep",
        email: "keep@example.com",
        name: "Keep",
        referralCode: "KEEP-1",
      });
      expect(await migrateDatabase(emptyUrl.toString())).toBe(0);
      const kept = await handle.db.select().from(users);
      expect(kept.map((u) => u.email)).toEqual(["keep@example.com"]);
    } finally {
      await handle.close();
    }
  });

  it("two processes migrating at once both succeed (advisory lock)", async () => {
    const name = `svc_race_${randomId(8)}`;
    const url = new URL(adminUrl);
    url.pathname = `/${name}`;
    await admin((c) => c.query(`create database ${c.escapeIdentifier(name)}`));
    try {
      const results = await Promise.all([migrateDatabase(url.toString()), migrateDatabase(url.toString())]);
      expect(results.sort()).toEqual([0, results[1]]);
      expect(results[1]).toBeGreaterThanOrEqual(1);
    } finally {
      await admin((c) => c.query(`drop database if exists ${c.escapeIdentifier(name)} with (force)`));
    }
  });

  it("each test file gets its own migrated database", async () => {
    const handle = connectDatabase(process.env.DATABASE_URL as string);
    try {
      const { rows } = await handle.pool.query("select current_database() as name");
      expect(rows[0].name).toMatch(/^svc_t_[0-9a-z]{12}$/);
      expect(await handle.db.select().from(users)).toEqual([]);
    } finally {
      await handle.close();
    }
  });
});
