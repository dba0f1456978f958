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

export type Settlement = { ok: true; transaction: string } | { ok: false; reason: string };

/** Asks the facilitator to settle one authorization; never throws for a refusal or an unreachable facilitator. */
export async function settleAuthorization(
  baseUrl: string,
  authorization: Eip3009Authorization,
  terms: SettlementTerms,
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
    });
    const body = answer.json() as
      | { success?: unknown; transaction?: unknown; errorReason?: unknown }
      | undefined;
    if (answer.ok && body?.success === true && typeof body.transaction === "string" && body.transaction) {
      return { ok: true, transaction: body.transaction };
    }
    const reason =
      typeof body?.errorReason === "string" ? body.errorReason : `answered HTTP ${answer.status}`;
    return { ok: false, reason: `the facilitator refused the payment: ${reason}` };
  } catch (err) {
    if (err instanceof OutboundError) return { ok: false, reason: err.message };
    throw err;
  }
}
