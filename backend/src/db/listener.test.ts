import { createLogger } from "@svc/common";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPgListener, type PgListener } from "./listener";

const connectionString = process.env.DATABASE_URL ?? "";
const logger = createLogger("listener-test", "silent");
const admin = new pg.Client({ connectionString });
const started: PgListener[] = [];

beforeAll(() => admin.connect());
afterAll(async () => {
  for (const listener of started) await listener.stop();
  await admin.end();
});

async function connections(applicationName: string): Promise<number> {
  const { rows } = await admin.query<{ n: number }>(
    "select count(*)::int as n from pg_stat_activity where application_name = $1 and datname = current_database()",
    [applicationName],
  );
  return rows[0].n;
}

describe("createPgListener", () => {
  it("hears its channel only, reconnects after its connection is killed, and ends it on stop", async () => {
    const heard: Array<string | undefined> = [];
    let reconnects = 0;
    const listener = createPgListener({
      connectionString,
      channel: "listener_test",
      applicationName: "svc-listener-test",
      logger,
      onNotification: (payload) => heard.push(payload),
      onReconnect: () => reconnects++,
    });
    started.push(listener);
    await listener.start();
    await admin.query("select pg_notify('other_channel', 'no'), pg_notify('listener_test', 'one')");
    await expect.poll(() => heard.length).toBeGreaterThan(0);
    expect(heard).toEqual(["one"]);

    await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-listener-test'",
    );
    await expect.poll(() => reconnects).toBe(1);
    await admin.query("select pg_notify('listener_test', 'two')");
    await expect.poll(() => heard.length).toBeGreaterThan(1);
    expect(heard).toEqual(["one", "two"]);

    await listener.stop();
    await expect.poll(() => connections("svc-listener-test")).toBe(0);
    expect(reconnects).toBe(1);
  });

  it("a failed first connect is retried in the background and stop cancels the retry", async () => {
    const listener = createPgListener({
      // Nothing listens on port 1: every attempt fails at once.
      connectionString: "postgres://nobody@127.0.0.1:1/none",
      channel: "listener_test",
      applicationName: "svc-listener-unreachable",
      logger,
      onNotification: () => undefined,
    });
    await expect(listener.start()).resolves.toBeUndefined();
    await expect(listener.stop()).resolves.toBeUndefined();
  });
});
