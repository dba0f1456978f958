import { type Clock, rateLimitAddress } from "@svc/common";
import type { Database } from "@svc/db";
import { sql } from "drizzle-orm";

export interface RateWindow {
  /** Requests allowed per window. */
  points: number;
  windowMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** Requests counted in the current window, this one included. */
  count: number;
  resetAt: Date;
  retryAfterSeconds: number;
}

/**
 * Counts one request against a fixed window kept in PostgreSQL (`rate_limit_windows`), atomically, so
 * the limit holds across any number of web processes. A window that has expired starts again at 1.
 */
export async function consumeRate(
  deps: { db: Database; clock: Clock },
  key: string,
  window: RateWindow,
): Promise<RateDecision> {
  const now = deps.clock.now().getTime();
  const result = await deps.db.execute<{ points: number; expire: string }>(sql`
    insert into rate_limit_windows (key, points, expire) values (${key}, 1, ${now + window.windowMs})
    on conflict (key) do update set
      points = case when rate_limit_windows.expire <= ${now} then 1 else rate_limit_windows.points + 1 end,
      expire = case when rate_limit_windows.expire <= ${now} then ${now + window.windowMs} else rate_limit_windows.expire end
    returning points, expire`);
  const row = result.rows[0];
  // Now and then, drop windows that ended long ago so the table stays the size of recent traffic.
  if (Math.random() < 0.01) {
    await deps.db.execute(sql`delete from rate_limit_windows where expire < ${now - 24 * 60 * 60 * 1000}`);
  }
  const resetAt = new Date(Number(row.expire));
  return {
    allowed: row.points <= window.points,
    count: row.points,
    resetAt,
    retryAfterSeconds: Math.max(1, Math.ceil((resetAt.getTime() - now) / 1000)),
  };
}

/**
 * Counts one request of the client at `ip` against `scope`'s window (key `<scope>:<address>`). Every
 * per-IP limit goes through here, so each counts an IPv6 client by its /64 (rateLimitAddress): a client
 * given a whole /64 cannot open a fresh window with each of its addresses.
 */
export function consumeAddressRate(
  deps: { db: Database; clock: Clock },
  scope: string,
  ip: string,
  window: RateWindow,
): Promise<RateDecision> {
  return consumeRate(deps, `${scope}:${rateLimitAddress(ip)}`, window);
}

/**
 * Takes back one request counted in `key`'s current window (never below 0): for limits that count only
 * failures, the request is counted before its outcome is known (so requests at once cannot all slip
 * under the limit) and refunded when it succeeded.
 */
export async function refundRate(deps: { db: Database }, key: string): Promise<void> {
  await deps.db.execute(
    sql`update rate_limit_windows set points = greatest(points - 1, 0) where key = ${key}`,
  );
}
