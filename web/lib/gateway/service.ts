/**
 * `POST /api/v1/gateway`: the plugin (`X-Plugin-Id`, else body `plugin`, else `agent`), the payment method
 * (./payment.ts), a verified payment, then the plugin's answer passed through with `x-plugin-id`,
 * `Payment-Receipt` and, for sessions, `X-Session-Remaining`. Refunds: a call is paid for the work the plugin
 * may have done, so a debit (card credit, session) is given back only when it did none — its upstream was
 * never reached (the request did not go out whole) or answered a 5xx other than 504. Once the upstream had
 * the request and no answer came (the timeout, a connection broken after sending, a 504), the call stays
 * paid: its provider may have spent the tokens. An MPP payment is settled on chain and never given back.
 */
import type { WebContext } from "../infra/context";
import { readJson } from "../infra/http/body";
import { toErrorResponse } from "../infra/http/errors";
import { signedInUserOf } from "../sessions/require";
import { backendFactsOf } from "../setup/backend-facts";
import { cardCreditOf } from "./billing/card";
import {
  MppRefusal,
  mppChallenge,
  mppConfigured,
  mppServer,
  paymentCredentialOf,
  verifyMppCredential,
} from "./billing/mpp";
import { depositCharge, isActivePaymentSession, openPaymentSession } from "./billing/session";
import { noPlugin, unauthorized, unknownPlugin } from "./errors";
import { type BillingOverview, gatewayBody, openSessionBody } from "./inputs";
import {
  type Payment,
  PaymentChallenge,
  pay,
  paymentRequiredResponse,
  payments,
  pluginCharge,
  selectPaymentMethod,
} from "./payment";
import { pluginRequest } from "./plugin-requests";
import { DEFAULT_PLUGIN, type Plugin, type PluginUpstream, pluginRegistry } from "./plugins";
import { microsToUsd, usdToMicros } from "./pricing";
import { callPlugin, NoPluginAnswer, type PluginAnswer } from "./proxy";

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
  if (plugin.auth) await requireCaller(ctx, request, plugin);
  if (!plugin.upstream) throw noPlugin(plugin.id);
  const upstreamPlugin = { ...plugin, upstream: plugin.upstream };
  const pluginBody = pluginRequest(plugin.id, forwarded);

  const payment = await pay(ctx, request, plugin, method);
  if (payment.replay) return payment.replay;
  payments.inc({ method, outcome: "paid" });

  let answer: PluginAnswer;
  try {
    answer = await callPlugin({
      plugin: upstreamPlugin,
      body: pluginBody,
      wantsStream: /\btext\/event-stream\b/i.test(request.headers.get("accept") ?? ""),
      timeoutMs: ctx.config.GATEWAY_UPSTREAM_TIMEOUT_MS,
    });
  } catch (err) {
    if (!(err instanceof NoPluginAnswer)) {
      await giveBack(payment);
      throw err;
    }
    if (!err.upstreamHadRequest) await giveBack(payment);
    // Paid without an answer: an Idempotency-Key replay is told so (409), not served nor charged again.
    else await payment.keep?.({ status: err.answer.status, contentType: null, body: null });
    throw err.answer;
  }
  if (answer.refundable) await giveBack(payment);
  return respond(upstreamPlugin, payment, answer);
}

async function giveBack(payment: Payment): Promise<void> {
  if (!payment.refund) return;
  await payment.refund();
  payments.inc({ method: payment.method, outcome: "refunded" });
}

async function respond(
  plugin: Plugin & { upstream: PluginUpstream },
  payment: Payment,
  answer: PluginAnswer,
): Promise<Response> {
  const headers: Record<string, string> = { "x-plugin-id": plugin.id, ...payment.headers };
  if (answer.contentType) headers["content-type"] = answer.contentType;
  const keep = !answer.refundable ? payment.keep : undefined;
  const kept = (bytes: Buffer | null) => ({
    status: answer.status,
    contentType: answer.contentType,
    body: bytes,
  });
  // A stream is kept once it ended (a replay before then is told to wait: 409); one that broke or was given
  // up is recorded as answered but not kept.
  const body = answer.body(keep ? (bytes) => void keep(kept(bytes)).catch(() => {}) : undefined);
  if (Buffer.isBuffer(body)) {
    // Kept before the answer leaves, so a replay right after it finds it.
    await keep?.(kept(body));
    return new Response(new Uint8Array(body), { status: answer.status, headers });
  }
  headers["cache-control"] = "no-cache, no-transform";
  headers["x-accel-buffering"] = "no";
  return new Response(body, { status: answer.status, headers });
}

/**
 * A plugin registered with `auth`: a session cookie, an MPP credential that verifies (offline, against this
 * plugin's price; nothing settled here) or an active, unexpired payment session of `X-Wallet-Address`, else
 * 401 `Unauthorized`, with the plugin's MPP challenge in `WWW-Authenticate` when MPP is configured.
 */
async function requireCaller(ctx: WebContext, request: Request, plugin: Plugin): Promise<void> {
  if (await signedInUserOf(ctx, request)) return;
  const sessionId = request.headers.get("x-session-id")?.trim();
  const wallet = request.headers.get("x-wallet-address")?.trim();
  if (sessionId && wallet && (await isActivePaymentSession(ctx.db, sessionId, wallet, ctx.clock.now()))) {
    return;
  }
  const credential = paymentCredentialOf(request.headers.get("authorization"));
  const mpp = mppConfigured(ctx.config);
  if (credential && mpp) {
    try {
      await verifyMppCredential(ctx.config, credential, pluginCharge(plugin));
      return;
    } catch (err) {
      if (!(err instanceof MppRefusal)) throw err;
    }
  }
  const response = toErrorResponse(unauthorized(), undefined, "gateway");
  if (mpp) {
    const { wwwAuthenticate } = await mppChallenge(ctx.config, pluginCharge(plugin));
    response.headers.set("www-authenticate", wwwAuthenticate);
    response.headers.set("cache-control", "no-store");
  }
  throw new PaymentChallenge(response);
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
  const [credit, backend] = await Promise.all([cardCreditOf(ctx.db, userId), backendFactsOf(ctx)]);
  // Known off only when the backend said so: an unanswered backend leaves the plugins as configured.
  const noAiProvider = backend.reachable && !backend.setup.aiProvider.configured;
  return {
    credit: microsToUsd(credit),
    cardConfigured: Boolean(ctx.config.STRIPE_SECRET_KEY),
    creditPack: microsToUsd(usdToMicros(ctx.config.CARD_CREDIT_PACK_USD)),
    mppConfigured: mppConfigured(ctx.config),
    plugins: [...pluginRegistry(ctx.config).values()].map((p) => {
      const unavailableReason =
        p.upstream === null ? "no_upstream" : p.platformAi && noAiProvider ? "no_ai_provider" : null;
      return {
        id: p.id,
        name: p.name,
        streaming: p.streaming,
        auth: p.auth,
        price: microsToUsd(p.priceMicros),
        available: unavailableReason === null,
        unavailableReason,
      };
    }),
  };
}
