import { freePort } from "@svc/common";
import {
  checkoutAsyncPaymentSucceededEvent,
  checkoutCompletedEvent,
  signStripeWebhook,
  startFakeStripe,
} from "@svc/common/testing";
import { cardCheckouts, cardCreditEvents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { GET as CHECKOUT } from "@/app/api/v1/payments/card/create/route";
import { POST as WEBHOOK } from "@/app/api/webhooks/stripe/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { cardCreditOf, receiveStripeWebhook } from "./billing/card";

const stripe = await startFakeStripe();
const WEBHOOK_SECRET = "whsec_test_0123456789abcdef";
const { clock, config } = useWebTestContext({
  STRIPE_SECRET_KEY: stripe.secretKey,
  STRIPE_API_BASE: stripe.url,
  STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
  GATEWAY_PLUGIN_TTS_URL: "http://127.0.0.1:9/tts",
});
afterAll(() => stripe.close());

const nowSeconds = () => Math.floor(clock.now().getTime() / 1000);

function postEvent(payload: string, signature: string | undefined) {
  return call(WEBHOOK, {
    method: "POST",
    path: "/api/webhooks/stripe",
    body: payload,
    headers: { "content-type": "application/json", ...(signature ? { "stripe-signature": signature } : {}) },
  });
}

describe("GET /api/v1/payments/card/create", () => {
  it("creates a checkout session for one credit pack at the provider and redirects to it (303)", async () => {
    const { user, jar } = await signedInUser();
    const res = await call(CHECKOUT, { path: "/api/v1/payments/card/create?plugin=tts", jar });
    expect(res.status).toBe(303);
    const created = stripe.sessions.at(-1);
    expect(res.headers.get("location")).toBe(created?.url);
    expect(created?.form).toMatchObject({
      mode: "payment",
      client_reference_id: user.id,
      customer_email: user.email,
      "line_items[0][quantity]": "1",
      "line_items[0][price_data][currency]": "usd",
      "line_items[0][price_data][unit_amount]": "500",
      "metadata[userId]": user.id,
      "metadata[plugin]": "tts",
      success_url: "http://localhost:3000/dashboard/billing?checkout=success",
    });
  });

  it("401 without a session; 400 unknown_plugin for an unknown plugin", async () => {
    const anonymous = await call(CHECKOUT, { path: "/api/v1/payments/card/create?plugin=agent" });
    expect(anonymous.status).toBe(401);
    const { jar } = await signedInUser();
    const unknown = await call(CHECKOUT, { path: "/api/v1/payments/card/create?plugin=nope", jar });
    expect(unknown.status).toBe(400);
    expect((await unknown.json()).code).toBe("unknown_plugin");
  });

  it("503 naming STRIPE_SECRET_KEY when card payments are not configured", async () => {
    const { createCardCheckout } = await import("./billing/card");
    const { user } = await signedInUser();
    const ctx = { ...webContext(), config: { ...config, STRIPE_SECRET_KEY: undefined } };
    await expect(createCardCheckout(ctx, user, "agent")).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining("STRIPE_SECRET_KEY"),
    });
  });

  it("502 card_provider_unavailable when the provider cannot be reached; nothing is created", async () => {
    const { createCardCheckout } = await import("./billing/card");
    const { user } = await signedInUser();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const ctx = { ...webContext(), config: { ...config, STRIPE_API_BASE: closed } };
    const before = stripe.sessions.length;
    await expect(createCardCheckout(ctx, user, "agent")).rejects.toMatchObject({
      status: 502,
      code: "card_provider_unavailable",
    });
    expect(stripe.sessions.length).toBe(before);
  });
});

describe("POST /api/webhooks/stripe", () => {
  /** A checkout of one credit pack (5.00 USD), created through the route as a buyer would: its session id. */
  async function boughtCheckout() {
    const signed = await signedInUser();
    const res = await call(CHECKOUT, { path: "/api/v1/payments/card/create?plugin=agent", jar: signed.jar });
    expect(res.status).toBe(303);
    const sessionId = stripe.sessions.at(-1)?.id ?? "";
    expect(res.headers.get("location")).toContain(sessionId);
    return { ...signed, sessionId };
  }
  const send = (event: Record<string, unknown>) => {
    const payload = JSON.stringify(event);
    return postEvent(payload, signStripeWebhook(payload, WEBHOOK_SECRET, nowSeconds()));
  };

  it("credits the buyer the pack of a checkout the platform created, once per event id", async () => {
    const { user, sessionId } = await boughtCheckout();
    expect(await webContext().db.select().from(cardCheckouts).where(eq(cardCheckouts.id, sessionId))).toEqual(
      [{ id: sessionId, userId: user.id, amountUsd: "5.000000", createdAt: expect.any(Date) }],
    );
    const event = checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500 });
    const payload = JSON.stringify(event);
    const first = await postEvent(payload, signStripeWebhook(payload, WEBHOOK_SECRET, nowSeconds()));
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, credited: "5.00" });
    const replay = await postEvent(payload, signStripeWebhook(payload, WEBHOOK_SECRET, nowSeconds()));
    expect(replay.status).toBe(200);
    expect(await replay.json()).toEqual({ received: true });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(5_000_000n);
    const events = await webContext()
      .db.select()
      .from(cardCreditEvents)
      .where(eq(cardCreditEvents.userId, user.id));
    expect(events).toHaveLength(1);
  });

  it("credits nothing for a paid checkout the platform did not create, nor one paid in another currency (200)", async () => {
    const { user, sessionId } = await boughtCheckout();
    const cases: [string, Record<string, unknown>][] = [
      // A checkout made elsewhere on the same provider account (a payment link naming the user, say).
      ["foreign", checkoutCompletedEvent({ userId: user.id, amountTotalCents: 500 })],
      [
        "foreign, large",
        checkoutCompletedEvent({
          userId: user.id,
          sessionId: "cs_live_elsewhere",
          amountTotalCents: 500_000,
        }),
      ],
      // The platform's own checkout, but paid in yen: 500 JPY is not 5.00 USD.
      ["JPY", checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500, currency: "jpy" })],
      [
        "converted from JPY",
        checkoutCompletedEvent({
          userId: user.id,
          sessionId,
          amountTotalCents: 500,
          currency: "eur",
          convertedFrom: { currency: "jpy", amountTotalCents: 500 },
        }),
      ],
      // In USD, but not the amount sold.
      ["1.00 USD", checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 100 })],
    ];
    for (const [name, event] of cases) {
      const res = await send(event);
      // Acknowledged so the provider does not retry what cannot change; nothing credited.
      expect(res.status, name).toBe(200);
      expect(await res.json(), name).toEqual({ received: true });
    }
    expect(await cardCreditOf(webContext().db, user.id)).toBe(0n);
    expect(
      await webContext().db.select().from(cardCreditEvents).where(eq(cardCreditEvents.userId, user.id)),
    ).toEqual([]);
  });

  it("credits the buyer, not whoever the event names, and a USD checkout the buyer paid in euros", async () => {
    const { user, sessionId } = await boughtCheckout();
    const other = await signedInUser();
    const res = await send(
      checkoutCompletedEvent({
        userId: other.user.id,
        sessionId,
        amountTotalCents: 462,
        currency: "eur",
        convertedFrom: { currency: "usd", amountTotalCents: 500 },
      }),
    );
    expect(await res.json()).toEqual({ received: true, credited: "5.00" });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(5_000_000n);
    expect(await cardCreditOf(webContext().db, other.user.id)).toBe(0n);
  });

  it("credits once when the same event arrives 5 times at once", async () => {
    const { user, sessionId } = await boughtCheckout();
    const payload = JSON.stringify(
      checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500 }),
    );
    const header = signStripeWebhook(payload, WEBHOOK_SECRET, nowSeconds());
    const answers = await Promise.all(Array.from({ length: 5 }, () => postEvent(payload, header)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(await cardCreditOf(webContext().db, user.id)).toBe(5_000_000n);
  });

  it("a delayed payment: the unpaid completed event credits nothing, its async_payment_succeeded credits once", async () => {
    const { user, sessionId } = await boughtCheckout();
    const completed = await send(
      checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500, paid: false }),
    );
    expect(await completed.json()).toEqual({ received: true });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(0n);
    const succeeded = checkoutAsyncPaymentSucceededEvent({
      userId: user.id,
      sessionId,
      amountTotalCents: 500,
    });
    const first = await send(succeeded);
    expect(first.status).toBe(200);
    expect(await first.json()).toEqual({ received: true, credited: "5.00" });
    const replay = await send(succeeded);
    expect(await replay.json()).toEqual({ received: true });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(5_000_000n);
  });

  it("two paid events of one checkout (distinct event ids) credit it once, even at once", async () => {
    const { user, sessionId } = await boughtCheckout();
    const answers = await Promise.all([
      send(checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500 })),
      send(checkoutAsyncPaymentSucceededEvent({ userId: user.id, sessionId, amountTotalCents: 500 })),
      send(checkoutAsyncPaymentSucceededEvent({ userId: user.id, sessionId, amountTotalCents: 500 })),
    ]);
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200]);
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(bodies.filter((b) => b.credited === "5.00")).toHaveLength(1);
    expect(await cardCreditOf(webContext().db, user.id)).toBe(5_000_000n);
    const events = await webContext()
      .db.select()
      .from(cardCreditEvents)
      .where(eq(cardCreditEvents.checkoutSessionId, sessionId));
    expect(events).toHaveLength(1);
  });

  it("400 for a tampered body, a wrong secret, an old timestamp or no signature: nothing credited", async () => {
    const { user, sessionId } = await boughtCheckout();
    const payload = JSON.stringify(
      checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500 }),
    );
    const tampered = payload.replace('"amount_total":500', '"amount_total":50000');
    const cases = [
      [tampered, signStripeWebhook(payload, WEBHOOK_SECRET, nowSeconds())],
      [payload, signStripeWebhook(payload, "whsec_someone_else_0123", nowSeconds())],
      [payload, signStripeWebhook(payload, WEBHOOK_SECRET, nowSeconds() - 301)],
      [payload, undefined],
    ] as const;
    for (const [body, signature] of cases) {
      const res = await postEvent(body, signature);
      expect(res.status).toBe(400);
      const answer = await res.json();
      expect(answer.code).toBe("invalid_signature");
      expect(answer.error).toMatch(/signature/i);
    }
    expect(await cardCreditOf(webContext().db, user.id)).toBe(0n);
  });

  it("acknowledges other events and unpaid sessions without crediting", async () => {
    const { user, sessionId } = await boughtCheckout();
    const unpaid = JSON.stringify(
      checkoutCompletedEvent({ userId: user.id, sessionId, amountTotalCents: 500, paid: false }),
    );
    const res = await postEvent(unpaid, signStripeWebhook(unpaid, WEBHOOK_SECRET, nowSeconds()));
    expect(await res.json()).toEqual({ received: true });
    const other = JSON.stringify({
      id: "evt_other",
      object: "event",
      type: "customer.created",
      data: { object: {} },
    });
    const res2 = await postEvent(other, signStripeWebhook(other, WEBHOOK_SECRET, nowSeconds()));
    expect(await res2.json()).toEqual({ received: true });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(0n);
  });

  it("503 naming STRIPE_WEBHOOK_SECRET when it is unset", async () => {
    const ctx = { ...webContext(), config: { ...config, STRIPE_WEBHOOK_SECRET: undefined } };
    await expect(receiveStripeWebhook(ctx, Buffer.from("{}"), "t=1,v1=x")).rejects.toMatchObject({
      status: 503,
      message: expect.stringContaining("STRIPE_WEBHOOK_SECRET"),
    });
  });
});
