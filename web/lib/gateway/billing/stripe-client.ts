/**
 * The card payments provider's client (Stripe). Its base URL comes from configuration: `STRIPE_API_BASE`
 * points it at a loopback fake in tests (the SDK accepts `host`, `port`, `protocol`). The SDK's requests go
 * through the one outbound client (its fetch adapter, as the MCP client's do): our timeout, no redirects,
 * answers capped, failures named; no retries. A configured upstream, so no URL guard.
 */
import { createOutboundClient, outboundFetch } from "@svc/common";
import Stripe from "stripe";
import type { WebConfig } from "../../infra/config";

export const STRIPE_TIMEOUT_MS = 15_000;
/** Largest answer read from the provider (a Checkout Session is a few kilobytes). */
const STRIPE_MAX_ANSWER_BYTES = 1024 * 1024;
const PROVIDER = "the card payments provider";

const stripeHttpClient = Stripe.createFetchHttpClient(
  outboundFetch(createOutboundClient({ name: PROVIDER }), {
    name: PROVIDER,
    timeoutMs: STRIPE_TIMEOUT_MS,
    maxResponseBytes: STRIPE_MAX_ANSWER_BYTES,
  }),
);

const clients = new Map<string, Stripe>();

/** The client of a secret key and base (one per pair, reused). */
export function stripeClient(
  config: Pick<WebConfig, "STRIPE_SECRET_KEY" | "STRIPE_API_BASE">,
): Stripe | null {
  const key = config.STRIPE_SECRET_KEY;
  if (!key) return null;
  const id = `${key}\n${config.STRIPE_API_BASE ?? ""}`;
  let client = clients.get(id);
  if (!client) {
    const base = config.STRIPE_API_BASE ? new URL(config.STRIPE_API_BASE) : undefined;
    client = new Stripe(key, {
      maxNetworkRetries: 0,
      timeout: STRIPE_TIMEOUT_MS,
      telemetry: false,
      httpClient: stripeHttpClient,
      ...(base
        ? {
            host: base.hostname,
            port: Number(base.port || (base.protocol === "https:" ? 443 : 80)),
            protocol: base.protocol === "https:" ? "https" : "http",
          }
        : {}),
    });
    clients.set(id, client);
  }
  return client;
}

/** Verifies a webhook's `Stripe-Signature` over the raw body (300 s tolerance); throws on any mismatch. */
export function verifyStripeEvent(rawBody: Buffer, signature: string, secret: string, nowMs: number) {
  return Stripe.webhooks.constructEvent(rawBody, signature, secret, 300, undefined, nowMs);
}
