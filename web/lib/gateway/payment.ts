/**
 * How a gateway call is paid: by card credit, an MPP
 * credential or a pre-funded payment session. Each method verifies and takes the payment before the plugin
 * is called and says how to give it back; a missing or refused payment is a 402 answered as it is.
 */
import { counter } from "@svc/common/metrics/index";
import type { WebContext } from "../infra/context";
import { errorResponse, toErrorResponse } from "../infra/http/errors";
import { signedInUserOf } from "../sessions/require";
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
import { type AnswerToKeep, debitPaymentSession, refundVoucher, storeVoucherAnswer } from "./billing/session";
import { badPaymentMethod, idempotencyAnswerNotKept, sessionRequired } from "./errors";
import { type PaymentMethod, paymentMethod } from "./inputs";
import type { Plugin } from "./plugins";
import { microsToUsd } from "./pricing";

export const payments = counter({
  name: "gateway_payments_total",
  help: "Gateway calls paid, by payment method and outcome (paid, refunded)",
  labelNames: ["method", "outcome"] as const,
});

/** The payment method of a call: `X-Payment-Method`, else `Authorization: Payment`, else card; 400 for an unknown `X-Payment-Method`. */
export function selectPaymentMethod(headers: Headers): PaymentMethod {
  const named = headers.get("x-payment-method");
  if (named !== null) {
    const parsed = paymentMethod.safeParse(named.trim().toLowerCase());
    if (!parsed.success) throw badPaymentMethod();
    return parsed.data;
  }
  return paymentCredentialOf(headers.get("authorization")) ? "mpp" : "stripe";
}

/** A 402 (or an auth plugin's 401) answered as it is (its headers matter), not through the error mapper. */
export class PaymentChallenge extends Error {
  constructor(readonly response: Response) {
    super("payment required");
  }
}

/** What a verified payment gives the answer, and how it is given back. */
export interface Payment {
  method: PaymentMethod;
  headers: Record<string, string>;
  /** Gives the payment back (the plugin failed); absent when it cannot be (settled on chain). */
  refund?(): Promise<void>;
  /** A replayed Idempotency-Key: the first answer served again (or 409 when it was not kept), no plugin call. */
  replay?: Response;
  /** Keeps the answer for replays (a null body: answered, but not kept). */
  keep?(answer: AnswerToKeep): Promise<void>;
}

export async function pay(
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

export function pluginCharge(plugin: Plugin): MppCharge {
  return {
    micros: plugin.priceMicros,
    description: `gateway plugin ${plugin.id}`,
    scope: `gateway:${plugin.id}`,
  };
}

/**
 * The 402 `payment_required`: the card block, and the MPP block with its `WWW-Authenticate` when MPP
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
  const user = await signedInUserOf(ctx, request);
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
    const transaction = await settleMppPayment(ctx, payment, plugin.id);
    // Settled on chain: nothing to give back when the plugin then fails.
    return { method: "mpp", headers: { "payment-receipt": transaction } };
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
  if (debit.kind === "not_kept") {
    const replay = toErrorResponse(idempotencyAnswerNotKept(debit.status), undefined, "gateway");
    for (const [name, value] of Object.entries({ "x-plugin-id": plugin.id, ...headers })) {
      replay.headers.set(name, value);
    }
    return { method: "session", headers, replay };
  }
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
