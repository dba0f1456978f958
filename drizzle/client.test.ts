import type { PoolClient } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { connectDatabase, DATABASE_CONNECTION_TIMEOUT_MS } from "./client";

const url = process.env.DATABASE_URL as string;
const handles: Array<ReturnType<typeof connectDatabase>> = [];
afterAll(() => Promise.all(handles.map((h) => h.close())));

describe("connectDatabase", () => {
  it("bounds the wait for a connection on every pool (default 10 s)", () => {
    const handle = connectDatabase(url);
    handles.push(handle);
    expect(DATABASE_CONNECTION_TIMEOUT_MS).toBe(10_000);
    expect(handle.pool.options.connectionTimeoutMillis).toBe(DATABASE_CONNECTION_TIMEOUT_MS);
  });

  it("a query on a full pool fails once the wait is over, instead of waiting forever", async () => {
    const handle = connectDatabase(url, { max: 1, connectionTimeoutMs: 100 });
    handles.push(handle);
    // The pool's one connection; its 100 ms connect deadline applies to it too, so a busy machine may need
    // a few tries to open it (what is under test is the second, waiting query).
    let held: PoolClient | undefined;
    for (let attempt = 0; !held; attempt++) {
      try {
        held = await handle.pool.connect();
      } catch (error) {
        if (attempt >= 50) throw error;
      }
    }
    try {
      await expect(handle.pool.query("select 1")).rejects.toThrow("timeout exceeded when trying to connect");
      expect(handle.pool.waitingCount).toBe(0);
    } finally {
      held.release();
    }
    expect((await handle.pool.query("select 1 as one")).rows).toEqual([{ one: 1 }]);
  });
});

describe("the embedded cluster's locale", () => {
  // An external TEST_DATABASE_URL keeps its own locale.
  it.skipIf(Boolean(process.env.TEST_DATABASE_URL))(
    "folds case beyond ASCII and keeps code-point order (builtin C.UTF-8)",
    async () => {
      const handle = connectDatabase(url, { max: 1 });
      handles.push(handle);
      const { rows } = await handle.pool.query(
        "select lower('ÉCOLE ΣΟΦΟΣ') as lowered, 'b' < 'É' as code_point_order",
      );
      expect(rows).toEqual([{ lowered: "école σοφοσ", code_point_order: true }]);
    },
  );
});
