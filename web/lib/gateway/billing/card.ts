/**
 * Card billing: prepaid credit (card networks cannot charge a cent per call; the provider's minimum charge is
 * $0.50). A card-paid call needs a signed-in user whose credit covers the price, debited atomically; credit is
 * bought through the provider's checkout and arrives by its signed webhook, once per event id.
 */
import type { Database } from "@svc/db";
import { sql } from "drizzle-orm";
import Stripe from "stripe";
import type { WebContext } from "../../context";
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
  return session.url;
}

export interface WebhookOutcome {
  received: true;
  /** The credit this event added, when it added any. */
  credited?: string;
}

/**
 * `POST /api/webhooks/stripe`: the signature over the raw body (`STRIPE_WEBHOOK_SECRET`, 300 s tolerance)
 * or 400, nothing credited; a paid `checkout.session.completed`, or the `checkout.session.async_payment_succeeded`
 * of a delayed payment method, credits its user the amount paid, once per event id and once per checkout (a
 * replayed event, or a second event of a credited checkout, is acknowledged and ignored). Other events are
 * acknowledged.
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
  const userId = session.client_reference_id ?? session.metadata?.userId;
  if (session.payment_status !== "paid" || !userId || !session.amount_total) return { received: true };
  const micros = BigInt(session.amount_total) * 10_000n;
  const credited = await creditOnce(ctx.db, event.id, userId, micros, session.id);
  return credited ? { received: true, credited: microsToUsd(micros) } : { received: true };
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
