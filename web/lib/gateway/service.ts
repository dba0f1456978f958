/**
 * `POST /api/v1/gateway` (spec "Gateway (web API)"): the plugin (`X-Plugin-Id`, else body `plugin`, else
 * `agent`), the payment method (`X-Payment-Method`; else `Authorization: Payment` means `mpp`; else card),
 * a verified payment, then the plugin's answer passed through with `x-plugin-id`, `Payment-Receipt` and, for
 * sessions, `X-Session-Remaining`. Nothing is served without a verified payment; a debit is given back when
 * the plugin fails (5xx, timeout, unreachable).
 */
import { counter } from "@svc/common/metrics/index";
import type { WebContext } from "../context";
import { readJson } from "../http/body";
import { errorResponse } from "../http/errors";
import { sessionUserOf } from "../sessions/service";
import { cardCreditOf, checkoutUrlOf, debitCardCredit, refundCardCredit } from "./billing/card";
import {
  type MppCharge,
  MppRefusal,
  mppChallenge,
  mppConfigured,
  mppServer,
  paymentCredentialOf,
  settleMppPayment,
  verifyMppCredential,
} from "./billing/mpp";
import {
  debitPaymentSession,
  depositCharge,
  openPaymentSession,
  refundVoucher,
  storeVoucherAnswer,
} from "./billing/session";
import { badPaymentMethod, noPlugin, sessionRequired, unauthorized, unknownPlugin } from "./errors";
import { DEFAULT_PLUGIN, type Plugin, type PluginUpstream, pluginRegistry } from "./plugins";
import { microsToUsd, usdToMicros } from "./pricing";
import { callPlugin, type PluginAnswer } from "./proxy";
import {
  type BillingOverview,
  gatewayBody,
  openSessionBody,
  type PaymentMethod,
  paymentMethod,
} from "./schema";

const payments = counter({
  name: "gateway_payments_total",
  help: "Gateway calls paid, by payment method and outcome (paid, refunded)",
  labelNames: ["method", "outcome"] as const,
});

/** The payment method of a call, in the spec's order; 400 for an unknown `X-Payment-Method`. */
export function selectPaymentMethod(headers: Headers): PaymentMethod {
  const named = headers.get("x-payment-method");
  if (named !== null) {
    const parsed = paymentMethod.safeParse(named.trim().toLowerCase());
    if (!parsed.success) throw badPaymentMethod();
    return parsed.data;
  }
  return paymentCredentialOf(headers.get("authorization")) ? "mpp" : "stripe";
}

/** A 402 answered as it is (its headers matter), not through the error mapper. */
export class PaymentChallenge extends Error {
  constructor(readonly response: Response) {
    super("payment required");
  }
}

/** What a verified payment gives the answer, and how it is given back. */
interface Payment {
  method: PaymentMethod;
  headers: Record<string, string>;
  refund(): Promise<void>;
  /** A replayed Idempotency-Key: the first answer, served again without calling the plugin. */
  replay?: Response;
  /** Keeps the answer for replays. */
  keep?(answer: { status: number; contentType: string | null; body: Buffer }): Promise<void>;
}

export async function handleGatewayCall(ctx: WebContext, request: Request): Promise<Response> {
  try {
    return await gatewayCall(ctx, request);
  } catch (err) {
    if (err instanceof PaymentChallenge) return err.response;
    throw err;
  }
}

async function gatewayCall(ctx: WebContext, request: Request): Promise<Response> {
  const body = await readJson(request, gatewayBody);
  const { plugin: named, ...forwarded } = body;
  const pluginId = request.headers.get("x-plugin-id")?.trim() || named || DEFAULT_PLUGIN;
  const plugin = pluginRegistry(ctx.config).get(pluginId);
  if (!plugin) throw unknownPlugin(pluginId);
  const method = selectPaymentMethod(request.headers);
  if (plugin.auth) await requireCaller(ctx, request);
  if (!plugin.upstream) throw noPlugin(plugin.id);
  const upstreamPlugin = { ...plugin, upstream: plugin.upstream };

  const payment = await pay(ctx, request, plugin, method);
  if (payment.replay) return payment.replay;
  payments.inc({ method, outcome: "paid" });

  let answer: PluginAnswer;
  try {
    answer = await callPlugin({
      plugin: upstreamPlugin,
      body: forwarded,
      wantsStream: /\btext\/event-stream\b/i.test(request.headers.get("accept") ?? ""),
    });
  } catch (err) {
    await giveBack(payment);
    throw err;
  }
  if (answer.failed) await giveBack(payment);
  return respond(upstreamPlugin, payment, answer);
}

async function giveBack(payment: Payment): Promise<void> {
  await payment.refund();
  payments.inc({ method: payment.method, outcome: "refunded" });
}

async function respond(
  plugin: Plugin & { upstream: PluginUpstream },
  payment: Payment,
  answer: PluginAnswer,
): Promise<Response> {
  const headers = new Headers({ "x-plugin-id": plugin.id, ...payment.headers });
  if (answer.contentType) headers.set("content-type", answer.contentType);
  const keep = !answer.failed ? payment.keep : undefined;
  const kept = (bytes: Buffer) => ({ status: answer.status, contentType: answer.contentType, body: bytes });
  // A stream is kept once it ended (a replay before then is told to wait: 409).
  const body = answer.body(keep ? (bytes) => void keep(kept(bytes)).catch(() => {}) : undefined);
  if (Buffer.isBuffer(body)) {
    // Kept before the answer leaves, so a replay right after it finds it.
    await keep?.(kept(body));
    return new Response(new Uint8Array(body), { status: answer.status, headers });
  }
  headers.set("cache-control", "no-cache, no-transform");
  headers.set("x-accel-buffering", "no");
  return new Response(body, { status: answer.status, headers });
}

/** A plugin registered with `auth`: a session cookie, an MPP credential or a payment session, else 401. */
async function requireCaller(ctx: WebContext, request: Request): Promise<void> {
  if (paymentCredentialOf(request.headers.get("authorization"))) return;
  if (request.headers.get("x-session-id")) return;
  if (await sessionUserOf(ctx, request)) return;
  throw unauthorized();
}

async function pay(
  ctx: WebContext,
  request: Request,
  plugin: Plugin,
  method: PaymentMethod,
): Promise<Payment> {
  switch (method) {
    case "stripe":
      return payByCard(ctx, request, plugin);
    case "mpp":
      return payByMpp(ctx, request, plugin);
    case "session":
      return payBySession(ctx, request, plugin);
  }
}

function pluginCharge(plugin: Plugin): MppCharge {
  return {
    micros: plugin.priceMicros,
    description: `gateway plugin ${plugin.id}`,
    scope: `gateway:${plugin.id}`,
  };
}

/**
 * The spec's 402 `payment_required`: the card block, and the MPP block with its `WWW-Authenticate` when MPP
 * is configured. `Cache-Control: no-store`.
 */
export async function paymentRequiredResponse(
  ctx: WebContext,
  message: string,
  charge: MppCharge,
  card: { pluginId: string } | null,
): Promise<Response> {
  const headers: Record<string, string> = { "cache-control": "no-store" };
  const extra: Record<string, unknown> = {};
  if (mppConfigured(ctx.config)) {
    const { offer, wwwAuthenticate } = await mppChallenge(ctx.config, charge);
    extra.mpp = offer;
    headers["www-authenticate"] = wwwAuthenticate;
  }
  if (card) {
    extra.stripe = {
      checkoutUrl: checkoutUrlOf(card.pluginId),
      amount: microsToUsd(charge.micros),
      currency: "usd",
    };
  }
  const response = errorResponse(402, "payment_required", message, extra, "gateway");
  for (const [name, value] of Object.entries(headers)) response.headers.set(name, value);
  return response;
}

async function payByCard(ctx: WebContext, request: Request, plugin: Plugin): Promise<Payment> {
  const required = async (message: string) =>
    new PaymentChallenge(
      await paymentRequiredResponse(ctx, message, pluginCharge(plugin), { pluginId: plugin.id }),
    );
  const user = await sessionUserOf(ctx, request);
  if (!user) throw await required("sign in with card credit, or pay with MPP or a payment session");
  const remaining = await debitCardCredit(ctx.db, user.id, plugin.priceMicros);
  if (remaining === null) {
    const credit = await cardCreditOf(ctx.db, user.id);
    throw await required(`card credit (${microsToUsd(credit)} USD) does not cover this call`);
  }
  return {
    method: "stripe",
    headers: {},
    refund: () => refundCardCredit(ctx.db, user.id, plugin.priceMicros),
  };
}

async function payByMpp(ctx: WebContext, request: Request, plugin: Plugin): Promise<Payment> {
  mppServer(ctx.config);
  const charge = pluginCharge(plugin);
  const refuse = async (message: string) =>
    new PaymentChallenge(await paymentRequiredResponse(ctx, message, charge, { pluginId: plugin.id }));
  const credential = paymentCredentialOf(request.headers.get("authorization"));
  if (!credential) throw await refuse("this call needs an MPP payment credential (Authorization: Payment)");
  try {
    const payment = await verifyMppCredential(ctx.config, credential, charge);
    const transaction = await settleMppPayment(ctx.db, ctx.config, payment, plugin.id);
    // Settled on chain: nothing to give back when the plugin then fails.
    return { method: "mpp", headers: { "payment-receipt": transaction }, refund: async () => {} };
  } catch (err) {
    if (err instanceof MppRefusal) throw await refuse(`payment credential refused: ${err.message}`);
    throw err;
  }
}

async function payBySession(ctx: WebContext, request: Request, plugin: Plugin): Promise<Payment> {
  const sessionId = request.headers.get("x-session-id")?.trim();
  const wallet = request.headers.get("x-wallet-address")?.trim();
  if (!sessionId || !wallet) throw sessionRequired();
  const idempotencyKey = request.headers.get("idempotency-key")?.trim().slice(0, 200) || null;
  const debit = await debitPaymentSession(ctx.db, {
    sessionId,
    wallet,
    micros: plugin.priceMicros,
    pluginId: plugin.id,
    idempotencyKey,
    now: ctx.clock.now(),
  });
  const headers = { "payment-receipt": debit.voucher, "x-session-remaining": microsToUsd(debit.remaining) };
  if (debit.kind === "replay") {
    const replayHeaders = new Headers({
      "x-plugin-id": plugin.id,
      ...headers,
      "idempotent-replayed": "true",
    });
    if (debit.answer.contentType) replayHeaders.set("content-type", debit.answer.contentType);
    return {
      method: "session",
      headers,
      refund: async () => {},
      replay: new Response(new Uint8Array(debit.answer.body), {
        status: debit.answer.status,
        headers: replayHeaders,
      }),
    };
  }
  const payment: Payment = {
    method: "session",
    headers,
    refund: async () => {
      const remaining = await refundVoucher(ctx.db, debit.voucher);
      if (remaining !== null) payment.headers["x-session-remaining"] = microsToUsd(remaining);
    },
  };
  if (idempotencyKey) payment.keep = (answer) => storeVoucherAnswer(ctx.db, debit.voucher, answer);
  return payment;
}

/**
 * `POST /api/wallet/sessions`: `{deposit}` (USD, within the configured range) paid by the MPP credential in
 * `Authorization: Payment`; without one (or with a refused one) 402 with a challenge for the deposit.
 */
export async function handleOpenSession(ctx: WebContext, request: Request): Promise<Response> {
  mppServer(ctx.config);
  const { deposit } = await readJson(request, openSessionBody);
  const charge = depositCharge(ctx, deposit);
  const credential = paymentCredentialOf(request.headers.get("authorization"));
  const refuse = (message: string) => paymentRequiredResponse(ctx, message, charge, null);
  if (!credential) return refuse("opening a session needs an MPP payment credential for the deposit");
  try {
    const session = await openPaymentSession(ctx, credential, charge);
    payments.inc({ method: "session-deposit", outcome: "paid" });
    return Response.json(session, { status: 201, headers: { "cache-control": "no-store" } });
  } catch (err) {
    if (err instanceof MppRefusal) return refuse(`payment credential refused: ${err.message}`);
    throw err;
  }
}

/** `GET /api/gateway/billing`: the user's card credit, which payments are configured, and the price list. */
export async function billingOverviewOf(ctx: WebContext, userId: string): Promise<BillingOverview> {
  const credit = await cardCreditOf(ctx.db, userId);
  return {
    credit: microsToUsd(credit),
    cardConfigured: Boolean(ctx.config.STRIPE_SECRET_KEY),
    creditPack: microsToUsd(usdToMicros(ctx.config.CARD_CREDIT_PACK_USD)),
    mppConfigured: mppConfigured(ctx.config),
    plugins: [...pluginRegistry(ctx.config).values()].map((p) => ({
      id: p.id,
      name: p.name,
      streaming: p.streaming,
      auth: p.auth,
      price: microsToUsd(p.priceMicros),
      available: p.upstream !== null,
    })),
  };
}
