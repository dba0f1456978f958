/**
 * make-payment: calls the target through the outbound guard; on an HTTP 402 the agent's wallet pays with the
 * protocol the target speaks — MPP (`WWW-Authenticate: Payment`, the mppx client), x402 v2
 * (`PAYMENT-REQUIRED`) or v1 (402 JSON body with `x402Version: 1`) through `@x402/fetch` + `@x402/evm` — and
 * retries once. The spending policy is checked and the daily cap reserved before anything is signed; every
 * attempt lands in the payments ledger. The wallet's key only signs; no platform key is ever used.
 */
import { privateKeyToAccount } from "viem/accounts";
import type { WebContext } from "../infra/context";
import { paymentFailed, targetRefused } from "./errors";
import type { MakePaymentInput, PaymentResult } from "./inputs";
import { openPrivateKey } from "./keys";
import { type PaymentAttempt, recordUnsigned } from "./ledger";
import { payMpp } from "./pay-mpp";
import { payX402 } from "./pay-x402";
import { paymentsCounter, resultOf, targetError } from "./payment-flow";
import type { PaymentProtocol } from "./policy";
import { requireWallet } from "./service";
import { guardedFetch } from "./target-client";

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

async function send(fetcher: typeof fetch, url: URL, init: RequestInit): Promise<Response> {
  try {
    return await fetcher(url, init);
  } catch (err) {
    throw targetError(err);
  }
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
