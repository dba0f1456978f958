import { bigint, index, integer, pgTable, text } from "drizzle-orm/pg-core";

// Shared fixed-window rate-limit counters (login 5 per 15 min per IP, sign-up, partner, chat).
// Exactly the three columns, in this order, that rate-limiter-flexible's RateLimiterPostgres writes with
// `INSERT ... VALUES ($1, $2, $3)`; `expire` is epoch milliseconds, as that store compares it with Date.now().
export const rateLimitWindows = pgTable(
  "rate_limit_windows",
  {
    key: text("key").primaryKey(),
    points: integer("points").notNull().default(0),
    /** Window end, Unix epoch milliseconds; null means the window never expires. */
    expire: bigint("expire", { mode: "number" }),
  },
  (t) => [index("rate_limit_windows_expire_idx").on(t.expire)],
);
export type RateLimitWindow = typeof rateLimitWindows.$inferSelect;
export type NewRateLimitWindow = typeof rateLimitWindows.$inferInsert;
