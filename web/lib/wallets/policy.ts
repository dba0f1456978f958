/**
 * The spending policy of agent wallets, checked before anything is signed: allowed networks (CAIP-2),
 * allowed assets (6-decimal USD stablecoins, so one atomic unit is one micro-USD), the optional recipient
 * allow-list, the per-payment cap, and (in ./ledger.ts, under a lock) the per-agent daily cap.
 */
import type { WebConfig } from "../infra/config";
import { formatMicroUsd } from "./money";

export type PaymentProtocol = "x402-v1" | "x402-v2" | "mpp";

/** What a seller asks for, in one shape whatever the protocol. */
export interface PaymentOffer {
  protocol: PaymentProtocol;
  /** CAIP-2, e.g. `eip155:8453`. */
  network: string;
  /** Token address, lower-case. */
  asset: string;
  /** Lower-case. */
  recipient: string;
  /** In the asset's smallest unit. */
  amountAtomic: bigint;
  /** When the offer states them. */
  decimals?: number;
}

export type SpendingPolicy = Pick<
  WebConfig,
  | "AGENT_PAYMENT_MAX_USD"
  | "AGENT_PAYMENT_DAILY_USD"
  | "AGENT_PAYMENT_NETWORKS"
  | "AGENT_PAYMENT_ASSETS"
  | "AGENT_PAYMENT_RECIPIENTS"
>;

/** Decimals of every allowed asset (USD stablecoins such as USDC). */
export const ALLOWED_ASSET_DECIMALS = 6;

/** The offer's amount in micro-USD (allowed assets have 6 decimals). */
export const microUsdOf = (offer: PaymentOffer): bigint => offer.amountAtomic;

/** Why the policy refuses the offer, or null when it may be signed (the daily cap aside). */
export function refusalOf(policy: SpendingPolicy, offer: PaymentOffer): string | null {
  if (!policy.AGENT_PAYMENT_NETWORKS.includes(offer.network))
    return `network ${offer.network} is not allowed (allowed: ${policy.AGENT_PAYMENT_NETWORKS.join(", ")})`;
  if (!policy.AGENT_PAYMENT_ASSETS.includes(offer.asset)) return `asset ${offer.asset} is not allowed`;
  if (offer.decimals !== undefined && offer.decimals !== ALLOWED_ASSET_DECIMALS)
    return `asset ${offer.asset} has ${offer.decimals} decimals, not ${ALLOWED_ASSET_DECIMALS}`;
  if (
    policy.AGENT_PAYMENT_RECIPIENTS.length > 0 &&
    !policy.AGENT_PAYMENT_RECIPIENTS.includes(offer.recipient)
  )
    return `recipient ${offer.recipient} is not allowed`;
  if (offer.amountAtomic <= 0n) return "the amount asked is not positive";
  if (microUsdOf(offer) > policy.AGENT_PAYMENT_MAX_USD)
    return `${formatMicroUsd(microUsdOf(offer))} USD is over the per-payment cap of ${formatMicroUsd(policy.AGENT_PAYMENT_MAX_USD)} USD`;
  return null;
}
