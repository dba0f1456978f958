/**
 * A loopback fake of the card payments provider's REST API (Stripe), only what the gateway calls:
 * `POST /v1/checkout/sessions` (form-encoded, `Authorization: Bearer <secret key>`) answering a checkout
 * session object with its hosted `url` (a GET of which answers a stand-in checkout page). `signStripeWebhook` signs an event body the way the provider does
 * (`Stripe-Signature: t=<unix s>,v1=<HMAC-SHA256 of "<t>.<body>">`), for webhook tests.
 */
import { createHmac, randomBytes } from "node:crypto";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeCheckoutSession {
  id: string;
  /** The form fields as sent, e.g. `line_items[0][price_data][unit_amount]`. */
  form: Record<string, string>;
  url: string;
}

export interface FakeStripe {
  /** Base URL to configure as `STRIPE_API_BASE`. */
  url: string;
  secretKey: string;
  upstream: FakeUpstream;
  sessions: FakeCheckoutSession[];
  close(): Promise<void>;
}

export async function startFakeStripe(secretKey = "sk_test_fake_0123456789"): Promise<FakeStripe> {
  const sessions: FakeCheckoutSession[] = [];
  let base = "";
  const upstream = await startFakeUpstream((req, res, raw) => {
    const path = (req.url ?? "/").split("?")[0];
    // The hosted checkout page a browser is sent to (a stand-in: it names the session).
    const hosted = sessions.find((s) => req.method === "GET" && path === `/c/pay/${s.id}`);
    if (hosted) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
      res.end(`<!doctype html><html lang="en"><title>Checkout</title><h1>Checkout ${hosted.id}</h1></html>`);
      return;
    }
    if (req.headers.authorization !== `Bearer ${secretKey}`) {
      return sendJson(res, 401, {
        error: { type: "invalid_request_error", message: "Invalid API Key provided" },
      });
    }
    if (req.method === "POST" && path === "/v1/checkout/sessions") {
      const form = Object.fromEntries(new URLSearchParams(raw.toString("utf8")));
      const missing = ["mode", "success_url"].find((name) => !form[name]);
      if (missing) {
        return sendJson(res, 400, {
          error: {
            type: "invalid_request_error",
            message: `Missing required param: ${missing}.`,
            param: missing,
          },
        });
      }
      const id = `cs_test_${randomBytes(12).toString("hex")}`;
      const url = `${base}/c/pay/${id}`;
      sessions.push({ id, form, url });
      const amount = Number(form["line_items[0][price_data][unit_amount]"] ?? 0);
      return sendJson(res, 200, {
        id,
        object: "checkout.session",
        mode: form.mode,
        url,
        status: "open",
        payment_status: "unpaid",
        amount_total: amount * Number(form["line_items[0][quantity]"] ?? 1),
        currency: form["line_items[0][price_data][currency]"] ?? "usd",
        client_reference_id: form.client_reference_id ?? null,
        metadata: Object.fromEntries(
          Object.entries(form)
            .filter(([k]) => k.startsWith("metadata["))
            .map(([k, v]) => [k.slice(9, -1), v]),
        ),
        success_url: form.success_url,
        cancel_url: form.cancel_url ?? null,
      });
    }
    return sendJson(res, 404, {
      error: { type: "invalid_request_error", message: `Unrecognized request URL (${req.method}: ${path}).` },
    });
  });
  base = upstream.url;
  return { url: upstream.url, secretKey, upstream, sessions, close: () => upstream.close() };
}

/** The `Stripe-Signature` header of `payload` signed with `secret` at `timestamp` (unix seconds). */
export function signStripeWebhook(payload: string, secret: string, timestamp: number): string {
  const signature = createHmac("sha256", secret).update(`${timestamp}.${payload}`).digest("hex");
  return `t=${timestamp},v1=${signature}`;
}

interface CheckoutEventInput {
  eventId?: string;
  sessionId?: string;
  userId: string;
  amountTotalCents: number;
  paid?: boolean;
  /** The session's currency, `usd` unless told. */
  currency?: string;
  /**
   * Adaptive pricing: the buyer paid `amountTotalCents` in `currency`, converted from this amount in the
   * currency the session was created in (`currency_conversion`).
   */
  convertedFrom?: { currency: string; amountTotalCents: number };
}

/** A `checkout.session.completed` event of a paid session (the provider's event shape, the fields we read). */
export function checkoutCompletedEvent(input: CheckoutEventInput): Record<string, unknown> {
  return checkoutEvent("checkout.session.completed", input);
}

/**
 * A `checkout.session.async_payment_succeeded` event: a delayed payment method (a bank debit) paid a checkout
 * whose `completed` event came earlier unpaid (`checkoutCompletedEvent({..., paid: false})`, same `sessionId`).
 */
export function checkoutAsyncPaymentSucceededEvent(
  input: Omit<CheckoutEventInput, "paid">,
): Record<string, unknown> {
  return checkoutEvent("checkout.session.async_payment_succeeded", input);
}

function checkoutEvent(type: string, input: CheckoutEventInput): Record<string, unknown> {
  return {
    id: input.eventId ?? `evt_${randomBytes(12).toString("hex")}`,
    object: "event",
    api_version: "2025-01-01",
    created: 1_700_000_000,
    type,
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    data: {
      object: {
        id: input.sessionId ?? `cs_test_${randomBytes(12).toString("hex")}`,
        object: "checkout.session",
        mode: "payment",
        status: "complete",
        payment_status: input.paid === false ? "unpaid" : "paid",
        amount_total: input.amountTotalCents,
        currency: input.currency ?? "usd",
        currency_conversion: input.convertedFrom
          ? {
              amount_subtotal: input.convertedFrom.amountTotalCents,
              amount_total: input.convertedFrom.amountTotalCents,
              fx_rate: "1.0",
              source_currency: input.convertedFrom.currency,
            }
          : null,
        client_reference_id: input.userId,
        metadata: { userId: input.userId },
      },
    },
  };
}
