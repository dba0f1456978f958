/**
 * The MPP settlement upstream: an x402-style facilitator, `POST {MPP_FACILITATOR_URL}/settle` with
 * `{x402Version: 2, paymentPayload, paymentRequirements}` (the EIP-3009 authorization and what it pays),
 * answering `{success, transaction, network, payer, errorReason?}`. Its address comes from configuration.
 */
import { createOutboundClient, OutboundError } from "@svc/common";

export const FACILITATOR_TIMEOUT_MS = 30_000;

const client = createOutboundClient({ name: "the MPP facilitator", timeoutMs: FACILITATOR_TIMEOUT_MS });

export interface Eip3009Authorization {
  from: string;
  to: string;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: string;
  signature: string;
}

export interface SettlementTerms {
  chainId: number;
  token: string;
  tokenName: string;
  tokenVersion: string;
}

/**
 * A settlement's outcome: `settled`; `refused` (the facilitator answered no, or the request never left:
 * nothing was transferred); `unknown` (it timed out, the connection broke or the facilitator failed after the
 * request was sent: the transfer may have happened). `timedOut` tells a timeout from the other unknowns.
 */
export type Settlement =
  | { outcome: "settled"; transaction: string }
  | { outcome: "refused"; reason: string }
  | { outcome: "unknown"; reason: string; timedOut: boolean };

/** Socket errors raised before the request could be sent (no connection was made): nothing was settled. */
const NOT_SENT = new Set(["ENOTFOUND", "EAI_AGAIN", "ECONNREFUSED", "EHOSTUNREACH", "ENETUNREACH"]);

/** Asks the facilitator to settle one authorization; never throws for a refusal or an unreachable facilitator. */
export async function settleAuthorization(
  baseUrl: string,
  authorization: Eip3009Authorization,
  terms: SettlementTerms,
  timeoutMs: number = FACILITATOR_TIMEOUT_MS,
): Promise<Settlement> {
  const { signature, ...transfer } = authorization;
  const paymentRequirements = {
    scheme: "exact",
    network: `eip155:${terms.chainId}`,
    amount: authorization.value,
    asset: terms.token,
    payTo: authorization.to,
    maxTimeoutSeconds: 300,
    extra: { assetTransferMethod: "eip3009", name: terms.tokenName, version: terms.tokenVersion },
  };
  const paymentPayload = {
    x402Version: 2,
    accepted: paymentRequirements,
    payload: { authorization: transfer, signature },
  };
  try {
    const answer = await client.request({
      method: "POST",
      url: `${baseUrl.replace(/\/+$/, "")}/settle`,
      json: { x402Version: 2, paymentPayload, paymentRequirements },
      timeoutMs,
    });
    const body = answer.json() as
      | { success?: unknown; transaction?: unknown; errorReason?: unknown }
      | undefined;
    if (answer.ok && body?.success === true && typeof body.transaction === "string" && body.transaction) {
      return { outcome: "settled", transaction: body.transaction };
    }
    const reason =
      typeof body?.errorReason === "string" ? body.errorReason : `answered HTTP ${answer.status}`;
    // A 4xx, or a 2xx saying `success: false`, is the facilitator's no; a 5xx (or a 2xx it cannot read)
    // may come after the transfer was sent.
    const refused = answer.status >= 400 ? answer.status < 500 : body?.success === false;
    return refused
      ? { outcome: "refused", reason: `the facilitator refused the payment: ${reason}` }
      : { outcome: "unknown", reason: `the facilitator failed: ${reason}`, timedOut: false };
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.reason === "unreachable" && err.socketCode && NOT_SENT.has(err.socketCode)) {
      return { outcome: "refused", reason: err.message };
    }
    return { outcome: "unknown", reason: err.message, timedOut: err.reason === "timeout" };
  }
}
