/**
 * Card billing: prepaid credit (card networks cannot charge a cent per call; the provider's minimum charge is
 * $0.50). A card-paid call needs a signed-in user whose credit covers the price, debited atomically; credit is
 * bought through the provider's checkout and arrives by its signed webhook, once per event id. Only checkouts
 * the platform created (their ids are stored) are credited, in USD, with the amount it sold.
 */
import type { Database } from "@svc/db";
import { sql } from "drizzle-orm";
import Stripe from "stripe";
import type { WebContext } from "../../infra/context";
import { badSignature, cardProviderFailed, notConfigured, unknownPlugin } from "../errors";
import { DEFAULT_PLUGIN, pluginRegistry } from "../plugins";
import { microsToUsd, numericToMicros, usdToMicros } from "../pricing";
import { stripeClient, verifyStripeEvent } from "./stripe-client";

/** Where a 402 sends a person to buy credit. */
export function checkoutUrlOf(pluginId: string): string {
  return `/api/v1/payments/card/create?plugin=${encodeURIComponent(pluginId)}`;
}

const usdParam = (micros: bigint) => sql`(${micros.toString()}::numeric / 1000000)`;

/** The user's card credit in micro-USD (0 without a row). */
export async function cardCreditOf(db: Database, userId: string): Promise<bigint> {
  const result = await db.execute<{ balance: string }>(
    sql`select balance_usd::text as balance from card_credits where user_id = ${userId}`,
  );
  return result.rows[0] ? numericToMicros(result.rows[0].balance) : 0n;
}

/** Takes `micros` off the user's credit in one statement; the new balance, or null when it does not cover it. */
export async function debitCardCredit(db: Database, userId: string, micros: bigint): Promise<bigint | null> {
  const result = await db.execute<{ balance: string }>(sql`
    update card_credits set balance_usd = balance_usd - ${usdParam(micros)}, updated_at = now()
    where user_id = ${userId} and balance_usd >= ${usdParam(micros)}
    returning balance_usd::text as balance`);
  return result.rows[0] ? numericToMicros(result.rows[0].balance) : null;
}

/** Gives a debit back (the plugin failed). */
export async function refundCardCredit(db: Database, userId: string, micros: bigint): Promise<void> {
  await db.execute(sql`
    update card_credits set balance_usd = balance_usd + ${usdParam(micros)}, updated_at = now()
    where user_id = ${userId}`);
}

/**
 * Creates a Checkout Session selling one credit pack (`CARD_CREDIT_PACK_USD`) to the user; its URL. 503
 * naming `STRIPE_SECRET_KEY` when card payments are not configured.
 */
export async function createCardCheckout(
  ctx: WebContext,
  user: { id: string; email: string },
  pluginId: string | undefined,
): Promise<string> {
  const plugin = pluginId ?? DEFAULT_PLUGIN;
  if (!pluginRegistry(ctx.config).has(plugin)) throw unknownPlugin(plugin);
  const stripe = stripeClient(ctx.config);
  if (!stripe) throw notConfigured("STRIPE_SECRET_KEY", "card payments");
  const pack = usdToMicros(ctx.config.CARD_CREDIT_PACK_USD);
  const base = ctx.config.PUBLIC_URL.replace(/\/+$/, "");
  const session = await stripe.checkout.sessions
    .create({
      mode: "payment",
      client_reference_id: user.id,
      customer_email: user.email,
      line_items: [
        {
          quantity: 1,
          price_data: {
            currency: "usd",
            unit_amount: Number(pack / 10_000n),
            product_data: { name: `Gateway credit (${microsToUsd(pack)} USD)` },
          },
        },
      ],
      metadata: { userId: user.id, plugin },
      success_url: `${base}/dashboard/billing?checkout=success`,
      cancel_url: `${base}/dashboard/billing?checkout=cancelled`,
    })
    .catch((err: unknown) => {
      // Unreachable, too slow, or refusing (a bad key): 502 in words, nothing changed here.
      if (err instanceof Stripe.errors.StripeError) throw cardProviderFailed(err.message);
      throw err;
    });
  if (!session.url) throw new Error("the card provider returned a checkout session without a URL");
  // Stored before the buyer is sent to pay: the webhook credits only checkouts found here.
  await ctx.db.execute(sql`
    insert into card_checkouts (id, user_id, amount_usd) values (${session.id}, ${user.id}, ${usdParam(pack)})`);
  return session.url;
}

export interface WebhookOutcome {
  received: true;
  /** The credit this event added, when it added any. */
  credited?: string;
}

/**
 * `POST /api/webhooks/stripe`: the signature over the raw body (`STRIPE_WEBHOOK_SECRET`, 300 s tolerance) or
 * 400. A paid `checkout.session.completed` (or a delayed payment's `async_payment_succeeded`) of a checkout
 * the platform created credits its buyer the USD amount sold, once per event id and once per checkout. A
 * checkout the platform did not create (a payment link, another product on the account) or not paid in the
 * USD amount sold is acknowledged (200: the provider would retry what cannot change), credits nothing and is
 * logged. Other events are acknowledged.
 */
export async function receiveStripeWebhook(
  ctx: WebContext,
  rawBody: Buffer,
  signature: string | null,
): Promise<WebhookOutcome> {
  const secret = ctx.config.STRIPE_WEBHOOK_SECRET;
  if (!secret) throw notConfigured("STRIPE_WEBHOOK_SECRET", "card payment webhooks");
  if (!signature) throw badSignature("the Stripe-Signature header is missing");
  let event: Stripe.Event;
  try {
    event = verifyStripeEvent(rawBody, signature, secret, ctx.clock.now().getTime());
  } catch (err) {
    throw badSignature(err instanceof Error ? err.message : "invalid signature");
  }
  if (
    event.type !== "checkout.session.completed" &&
    event.type !== "checkout.session.async_payment_succeeded"
  ) {
    return { received: true };
  }
  const session = event.data.object;
  if (session.payment_status !== "paid") return { received: true };
  const checkout = await checkoutOf(ctx.db, session.id);
  const refusal = !checkout
    ? "not a checkout the platform created"
    : usdCentsPaid(session) !== checkout.micros / 10_000n
      ? `not paid in USD the amount sold (${microsToUsd(checkout.micros)} USD)`
      : null;
  if (!checkout || refusal) {
    ctx.logger.warn(
      { eventId: event.id, checkoutSessionId: session.id, currency: session.currency },
      `card webhook: checkout not credited: ${refusal}`,
    );
    return { received: true };
  }
  const credited = await creditOnce(ctx.db, event.id, checkout.userId, checkout.micros, session.id);
  return credited ? { received: true, credited: microsToUsd(checkout.micros) } : { received: true };
}

/** A checkout the platform created: its buyer and the amount sold, or null. */
async function checkoutOf(
  db: Database,
  checkoutSessionId: string,
): Promise<{ userId: string; micros: bigint } | null> {
  const result = await db.execute<{ user_id: string; amount: string }>(sql`
    select user_id, amount_usd::text as amount from card_checkouts where id = ${checkoutSessionId}`);
  const row = result.rows[0];
  return row ? { userId: row.user_id, micros: numericToMicros(row.amount) } : null;
}

/**
 * The USD cents a checkout was paid, or null when it was not paid in USD. With the provider's adaptive pricing
 * the buyer may pay in their own currency: the session's `currency_conversion` then holds the USD it was
 * created in and the amount in it.
 */
function usdCentsPaid(session: Stripe.Checkout.Session): bigint | null {
  const conversion = session.currency_conversion;
  const [currency, cents] = conversion
    ? [conversion.source_currency, conversion.amount_total]
    : [session.currency, session.amount_total];
  if (currency?.toLowerCase() !== "usd" || !Number.isSafeInteger(cents)) return null;
  return BigInt(cents as number);
}

/**
 * Records the event and adds the credit in one statement; false when the event, or another event of the same
 * checkout, was credited before (either unique key of card_credit_events).
 */
async function creditOnce(
  db: Database,
  eventId: string,
  userId: string,
  micros: bigint,
  checkoutSessionId: string,
): Promise<boolean> {
  const result = await db.execute(sql`
    with event as (
      insert into card_credit_events (event_id, user_id, amount_usd, checkout_session_id)
      select ${eventId}, id, ${usdParam(micros)}, ${checkoutSessionId} from users where id = ${userId}
      on conflict do nothing
      returning user_id, amount_usd
    )
    insert into card_credits (user_id, balance_usd)
    select user_id, amount_usd from event
    on conflict (user_id) do update set balance_usd = card_credits.balance_usd + excluded.balance_usd,
      updated_at = now()
    returning user_id`);
  return result.rows.length > 0;
}
