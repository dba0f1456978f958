/**
 * The web's one advisory-lock helper: runs `fn` holding the PostgreSQL session advisory lock `hashtext(key)`
 * on one pooled connection, which `fn` gets (so the holder never waits for the pool). Released in `finally`;
 * a connection whose unlock fails is destroyed, which releases the lock with its session. With `ifBusy` it
 * only tries: while another session holds the lock, `ifBusy()`'s error is thrown at once instead of parking a
 * pooled connection in `pg_advisory_lock`.
 */
import type { Database } from "@svc/db";
import type { Pool, PoolClient } from "pg";

export async function withAdvisoryLock<T>(
  db: Database,
  key: string,
  fn: (client: PoolClient) => Promise<T>,
  options: { ifBusy?: () => Error } = {},
): Promise<T> {
  // drizzle's node-postgres database keeps its pool as `$client`; the lock needs one connection of it.
  const pool = (db as unknown as { $client: Pool }).$client;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    if (options.ifBusy) {
      const { rows } = await client.query<{ locked: boolean }>(
        "select pg_try_advisory_lock(hashtext($1)) as locked",
        [key],
      );
      if (!rows[0]?.locked) throw options.ifBusy();
    } else {
      await client.query("select pg_advisory_lock(hashtext($1))", [key]);
    }
    try {
      return await fn(client);
    } finally {
      await client.query("select pg_advisory_unlock(hashtext($1))", [key]).catch((err) => {
        broken = err as Error;
      });
    }
  } finally {
    client.release(broken);
  }
}
