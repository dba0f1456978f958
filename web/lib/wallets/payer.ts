/**
 * make-payment: calls the target through the outbound guard; on an HTTP 402 the agent's wallet pays with the
 * protocol the target speaks — MPP (`WWW-Authenticate: Payment`, the mppx client), x402 v2
 * (`PAYMENT-REQUIRED`) or v1 (402 JSON body with `x402Version: 1`) through `@x402/fetch` + `@x402/evm` — and
 * retries once. The spending policy is checked and the daily cap reserved before anything is signed; every
 * attempt lands in the payments ledger. The wallet's key only signs; no platform key is ever used.
 */

import { OutboundError } from "@svc/common";
import { counter } from "@svc/common/metrics/index";
import type { AgentPayment } from "@svc/db/schema";
import type { PaymentRequired, PaymentRequirements } from "@x402/core/types";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { getEvmChainIdV1 } from "@x402/evm/v1";
import {
  decodePaymentResponseHeader,
  type Network,
  wrapFetchWithPayment,
  x402Client,
  x402HTTPClient,
} from "@x402/fetch";
import { Receipt } from "mppx";
import { evm, Mppx } from "mppx/client";
import type { LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { WebContext } from "../context";
import { paymentFailed, targetFailed, targetRefused } from "./errors";
import { openPrivateKey } from "./keys";
import { type PaymentAttempt, paymentView, recordUnsigned, reservePayment, settlePayment } from "./ledger";
import { type PaymentOffer, type PaymentProtocol, refusalOf } from "./policy";
import type { MakePaymentInput, PaymentResult } from "./schema";
import { requireWallet } from "./service";
import { guardedFetch } from "./target-client";

function paymentsCounter() {
  return counter<"protocol" | "outcome">({
    name: "agent_payments_total",
    help: "Agent wallet payment attempts by protocol (x402-v1, x402-v2, mpp, none) and outcome (paid, failed, refused, error)",
    labelNames: ["protocol", "outcome"],
  });
}

export async function makePayment(
  ctx: WebContext,
  userId: string,
  input: MakePaymentInput,
): Promise<PaymentResult> {
  const wallet = await requireWallet(ctx.db, userId, input.agentId);
  let url: URL;
  try {
    url = new URL(input.url);
  } catch {
    throw targetRefused("it is not an absolute URL");
  }
  const fetcher = guardedFetch(ctx.config.OUTBOUND_ALLOW_HOSTS);
  const headers = new Headers(input.headers);
  if (input.body !== undefined && !headers.has("content-type"))
    headers.set("content-type", "application/json");
  const init: RequestInit = {
    method: input.method,
    headers,
    body: input.body === undefined ? undefined : JSON.stringify(input.body),
  };
  const first = await send(fetcher, url, init);
  if (first.status !== 402) return { success: true, result: await resultOf(first), payment: null };

  const attempt: PaymentAttempt = { userId, agentId: input.agentId, host: url.host, method: input.method };
  const protocol = await protocolOf(first);
  if (!protocol) {
    const row = await recordUnsigned(
      ctx,
      attempt,
      null,
      "error",
      "the target answered 402 without an x402 or MPP offer",
    );
    paymentsCounter().inc({ protocol: "none", outcome: "error" });
    throw paymentFailed(row.reason ?? "", row.id);
  }
  const account = privateKeyToAccount(
    openPrivateKey(ctx.config.WALLET_ENCRYPTION_KEY, wallet.encryptedPrivateKey),
  );
  const pay = protocol === "mpp" ? payMpp : payX402;
  return pay({ ctx, attempt, account, fetcher, url, init, first, protocol });
}

/** The pending ledger row of a reserved payment. */
type Reservation = Pick<AgentPayment, "id">;

interface PayArgs {
  ctx: WebContext;
  attempt: PaymentAttempt;
  account: LocalAccount;
  fetcher: typeof fetch;
  url: URL;
  init: RequestInit;
  first: Response;
  protocol: PaymentProtocol;
}

async function send(fetcher: typeof fetch, url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetcher(url, init);
  } catch (err) {
    throw targetError(err);
  }
}

function targetError(err: unknown): unknown {
  if (!(err instanceof OutboundError)) return err;
  return err.reason === "refused" ? targetRefused(err.message) : targetFailed(err.message);
}

async function protocolOf(response: Response): Promise<PaymentProtocol | null> {
  if (/^\s*Payment\b/i.test(response.headers.get("www-authenticate") ?? "")) return "mpp";
  if (response.headers.has("payment-required")) return "x402-v2";
  const body = await response
    .clone()
    .json()
    .catch(() => null);
  return (body as { x402Version?: unknown } | null)?.x402Version === 1 ? "x402-v1" : null;
}

async function resultOf(response: Response): Promise<PaymentResult["result"]> {
  const text = await response.text();
  let body: unknown = text;
  if (/\bjson\b/i.test(response.headers.get("content-type") ?? "")) {
    try {
      body = JSON.parse(text);
    } catch {
      body = text;
    }
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

/** Refused before signing: recorded, counted, answered 402. */
async function refuse(args: PayArgs, offer: PaymentOffer | null, reason: string): Promise<never> {
  const row = await recordUnsigned(args.ctx, args.attempt, offer, "refused", reason);
  paymentsCounter().inc({ protocol: args.protocol, outcome: "refused" });
  throw paymentFailed(reason, row.id);
}

/** The signed payment's end: paid answers the target's result, failed a 402. */
async function finish(args: PayArgs, reservation: Reservation, response: Response, reference: string | null) {
  const result = await resultOf(response);
  const paid =
    response.status !== 402 && (reference !== null || (response.status >= 200 && response.status < 300));
  const row = await settlePayment(args.ctx.db, reservation.id, {
    outcome: paid ? "paid" : "failed",
    reference,
    status: response.status,
    reason: paid ? null : `the seller did not accept the payment (HTTP ${response.status})`,
  });
  paymentsCounter().inc({ protocol: args.protocol, outcome: row.outcome });
  if (!paid) throw paymentFailed(row.reason ?? "", row.id);
  return { success: true as const, result, payment: paymentView(row) };
}

async function failSigned(args: PayArgs, reservation: Reservation, err: unknown): Promise<never> {
  const reason = err instanceof Error ? err.message : String(err);
  await settlePayment(args.ctx.db, reservation.id, { outcome: "failed", reason });
  paymentsCounter().inc({ protocol: args.protocol, outcome: "failed" });
  const mapped = targetError(err instanceof Error && err.cause instanceof OutboundError ? err.cause : err);
  if (mapped !== err && !(mapped instanceof OutboundError)) throw mapped;
  throw paymentFailed(reason, reservation.id);
}

function x402Offer(version: number, requirements: PaymentRequirements): PaymentOffer {
  const v1 = requirements as PaymentRequirements & { maxAmountRequired?: string };
  const network = version === 1 ? `eip155:${safeChainIdV1(requirements.network)}` : requirements.network;
  return {
    protocol: version === 1 ? "x402-v1" : "x402-v2",
    network,
    asset: requirements.asset.toLowerCase(),
    recipient: requirements.payTo.toLowerCase(),
    amountAtomic: BigInt((version === 1 ? v1.maxAmountRequired : requirements.amount) ?? "0"),
  };
}

function safeChainIdV1(name: string): string {
  try {
    return String(getEvmChainIdV1(name as never));
  } catch {
    return `unknown (${name})`;
  }
}

async function payX402(args: PayArgs): Promise<PaymentResult> {
  const { ctx, attempt, account } = args;
  const http = new x402HTTPClient(new x402Client());
  let required: PaymentRequired;
  try {
    const body = await args.first
      .clone()
      .json()
      .catch(() => undefined);
    required = http.getPaymentRequiredResponse((name) => args.first.headers.get(name), body);
  } catch (err) {
    return refuse(args, null, `the x402 offer could not be read: ${(err as Error).message}`);
  }
  const offers = required.accepts.map((r) => x402Offer(required.x402Version, r));
  const refusals = offers.map((offer) => refusalOf(ctx.config, offer));
  if (refusals.every((r) => r !== null))
    return refuse(args, offers[0] ?? null, refusals[0] ?? "the offer lists no payment option");

  const client = new x402Client();
  registerExactEvmScheme(client, {
    signer: account,
    networks: ctx.config.AGENT_PAYMENT_NETWORKS as Network[],
  });
  // Our policy is the one that decides (networks, assets, recipients, caps), the library's default spend controls
  // (its own asset list and a $1 cap) are replaced by it.
  client.setSpendControls(false);
  client.registerPolicy((version, requirements) =>
    requirements.filter((r) => refusalOf(ctx.config, x402Offer(version, r)) === null),
  );
  let reservation: Reservation | null = null;
  let refusedRow: AgentPayment | null = null;
  client.onBeforePaymentCreation(async ({ paymentRequired, selectedRequirements }) => {
    if (reservation) return { abort: true, reason: "the payment was already made once for this call" };
    const reserved = await reservePayment(
      ctx,
      attempt,
      x402Offer(paymentRequired.x402Version, selectedRequirements),
    );
    if (!reserved.reserved) {
      refusedRow = reserved.row;
      return { abort: true, reason: reserved.row.reason ?? "refused" };
    }
    reservation = reserved.row;
  });
  let replayed = false;
  // The first answer is already here: hand it to the wrapper instead of asking the target twice.
  const fetchOnce: typeof fetch = async (input, init) => {
    if (!replayed) {
      replayed = true;
      return args.first;
    }
    return args.fetcher(input, init);
  };
  let response: Response;
  try {
    response = await wrapFetchWithPayment(fetchOnce, client)(args.url, args.init);
  } catch (err) {
    const refused = refusedRow as AgentPayment | null;
    if (refused) {
      paymentsCounter().inc({ protocol: args.protocol, outcome: "refused" });
      throw paymentFailed(refused.reason ?? "refused", refused.id);
    }
    if (reservation) return failSigned(args, reservation, err);
    return refuse(args, offers[0] ?? null, (err as Error).message);
  }
  const signed = reservation as Reservation | null;
  if (!signed) return refuse(args, offers[0] ?? null, "the x402 client did not pay");
  const header = response.headers.get("payment-response") ?? response.headers.get("x-payment-response");
  let reference: string | null = null;
  if (header) {
    try {
      const settled = decodePaymentResponseHeader(header);
      reference = settled.success ? settled.transaction || null : null;
    } catch {
      reference = null;
    }
  }
  return finish(args, signed, response, reference);
}

/** mppx knows the EIP-712 domain of these assets; an allowed asset must be one of them to be paid by MPP. */
const MPP_ASSETS = [evm.assets.base.USDC, evm.assets.baseSepolia.USDC];

async function payMpp(args: PayArgs): Promise<PaymentResult> {
  const { ctx, attempt, account } = args;
  const allowed = ctx.config.AGENT_PAYMENT_ASSETS;
  const currencies = MPP_ASSETS.filter((a) => allowed.includes(a.address.toLowerCase()));
  const mppx = Mppx.create({
    methods: [
      evm.charge({
        account,
        currencies,
        networks: ctx.config.AGENT_PAYMENT_NETWORKS.map((n) => Number(n.slice("eip155:".length))),
      }),
    ],
    fetch: args.fetcher,
    polyfill: false,
  });
  let payment: Awaited<ReturnType<typeof mppx.preparePayment>>;
  try {
    payment = await mppx.preparePayment(args.first, { request: args.init });
  } catch (err) {
    return refuse(args, null, `the MPP challenge cannot be paid by this wallet: ${(err as Error).message}`);
  }
  const request = payment.challenge.request as {
    amount: string;
    currency: string;
    recipient: string;
    methodDetails?: { chainId?: number; decimals?: number };
  };
  const offer: PaymentOffer = {
    protocol: "mpp",
    network: `eip155:${request.methodDetails?.chainId ?? "unknown"}`,
    asset: request.currency.toLowerCase(),
    recipient: request.recipient.toLowerCase(),
    amountAtomic: BigInt(request.amount),
    decimals: request.methodDetails?.decimals,
  };
  const refusal = refusalOf(ctx.config, offer);
  if (refusal) return refuse(args, offer, refusal);
  const reserved = await reservePayment(ctx, attempt, offer);
  if (!reserved.reserved) {
    paymentsCounter().inc({ protocol: "mpp", outcome: "refused" });
    throw paymentFailed(reserved.row.reason ?? "refused", reserved.row.id);
  }
  let response: Response;
  try {
    const credential = await payment.createCredential({ account });
    response = await args.fetcher(
      args.url,
      payment.setCredential({ ...args.init }, credential) as RequestInit,
    );
  } catch (err) {
    return failSigned(args, reserved.row, err);
  }
  let reference: string | null = null;
  const receipt = response.headers.get("payment-receipt");
  if (receipt) {
    try {
      const parsed = Receipt.deserialize(receipt);
      reference = parsed.status === "success" ? parsed.reference : null;
    } catch {
      reference = null;
    }
  }
  return finish(args, reserved.row, response, reference);
}
