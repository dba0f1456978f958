import { sql } from "drizzle-orm";
import { check, numeric, pgTable, text, unique } from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { createdAt, updatedAt } from "./columns";

// Prepaid card credit of the v1 gateway (card networks cannot charge a cent per call): bought through the card
// provider's checkout, debited per card-paid call. Never negative.
export const cardCredits = pgTable(
  "card_credits",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    balanceUsd: numeric("balance_usd", { precision: 18, scale: 6 }).notNull().default("0"),
    updatedAt: updatedAt(),
  },
  (t) => [check("card_credits_balance_non_negative", sql`${t.balanceUsd} >= 0`)],
);
export type CardCredit = typeof cardCredits.$inferSelect;

// The checkout sessions the platform created at the card provider (its session id), with the user and the
// USD amount sold: the webhook credits only these, that amount, to that user, so a checkout made elsewhere
// on the same provider account (a payment link, another product), or one paid in another currency, is none.
export const cardCheckouts = pgTable(
  "card_checkouts",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amountUsd: numeric("amount_usd", { precision: 18, scale: 6 }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [check("card_checkouts_amount_positive", sql`${t.amountUsd} > 0`)],
);
export type CardCheckout = typeof cardCheckouts.$inferSelect;

// Card-provider webhook events already credited, so a replayed event credits once, and a checkout once
// (its `completed` and delayed `async_payment_succeeded` events are two events of one payment).
export const cardCreditEvents = pgTable(
  "card_credit_events",
  {
    eventId: text("event_id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amountUsd: numeric("amount_usd", { precision: 18, scale: 6 }).notNull(),
    checkoutSessionId: text("checkout_session_id"),
    createdAt: createdAt(),
  },
  (t) => [unique("card_credit_events_checkout_session_id").on(t.checkoutSessionId)],
);
export type CardCreditEvent = typeof cardCreditEvents.$inferSelect;
