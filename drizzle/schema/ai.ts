import { bigint, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { timestamptz, updatedAt } from "./columns";

// Per-user usage of the AI proxy `POST /api/ai/chat`: one row per user and clock hour (UTC). The request
// budget counts `requests` of the current hour, incremented by one conditional upsert so every backend
// process shares it; the token budget sums the rows of the current UTC day. Tokens are the provider's
// `usage` (an estimate when it reports none).
export const aiUsageHours = pgTable(
  "ai_usage_hours",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** Start of the clock hour this row counts. */
    hourStart: timestamptz("hour_start").notNull(),
    requests: integer("requests").notNull().default(0),
    promptTokens: bigint("prompt_tokens", { mode: "number" }).notNull().default(0),
    completionTokens: bigint("completion_tokens", { mode: "number" }).notNull().default(0),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.hourStart] })],
);
export type AiUsageHour = typeof aiUsageHours.$inferSelect;
export type NewAiUsageHour = typeof aiUsageHours.$inferInsert;
