/**
 * Paying an x402 seller (v1: 402 JSON body and `X-PAYMENT`; v2: `PAYMENT-REQUIRED` and `PAYMENT-SIGNATURE`)
 * with `@x402/fetch` + `@x402/evm`: the offers are checked against the spending policy first, the daily cap
 * is reserved in the client's before-signing hook, and the wrapper pays once and retries once.
 */
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
import { isRawAmount, MAX_AMOUNT_DIGITS } from "../chain/units";
import { paymentFailed } from "./errors";
import type { PaymentResult } from "./inputs";
import { reservePayment } from "./ledger";
import { failSigned, finish, type PayArgs, paymentsCounter, type Reservation, refuse } from "./payment-flow";
import { type PaymentOffer, refusalOf } from "./policy";

/** The longest network, asset or payTo read from an offer (each is named in refusals and the ledger). */
const OFFER_FIELD_MAX = 128;

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

/**
 * The offers of a decoded 402, each checked to be something we can judge and sign: the seller's document is
 * untrusted, so a missing `accepts`, asset, payTo or network, or an amount that is not a whole number of
 * atomic units of at most MAX_AMOUNT_DIGITS digits (a longer one is no real price, and would swell the
 * refusal and the ledger), or a network, asset or payTo over OFFER_FIELD_MAX characters, is a malformed
 * offer (a reason, not an exception).
 */
function offersOf(required: PaymentRequired): PaymentOffer[] | string {
  const accepts = (required as { accepts?: unknown } | null)?.accepts;
  if (!Array.isArray(accepts)) return "it has no list of payment options (accepts)";
  const offers: PaymentOffer[] = [];
  for (const [i, option] of accepts.entries()) {
    const r = option as Record<string, unknown> | null;
    if (typeof r !== "object" || r === null) return `option ${i + 1} is not an object`;
    const amountField = required.x402Version === 1 ? "maxAmountRequired" : "amount";
    for (const field of ["network", "asset", "payTo", amountField]) {
      if (typeof r[field] !== "string" || r[field] === "") return `option ${i + 1} has no ${field}`;
      if (field !== amountField && (r[field] as string).length > OFFER_FIELD_MAX)
        return `option ${i + 1}'s ${field} is longer than ${OFFER_FIELD_MAX} characters`;
    }
    if (!isRawAmount(r[amountField]))
      return `option ${i + 1}'s ${amountField} is not a whole number of atomic units (at most ${MAX_AMOUNT_DIGITS} digits)`;
    offers.push(x402Offer(required.x402Version, option as PaymentRequirements));
  }
  return offers;
}

function safeChainIdV1(name: string): string {
  try {
    return String(getEvmChainIdV1(name as never));
  } catch {
    return `unknown (${name})`;
  }
}

export async function payX402(args: PayArgs): Promise<PaymentResult> {
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
  const offers = offersOf(required);
  if (typeof offers === "string")
    return refuse(args, null, `the seller's payment offer is malformed: ${offers}`);
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
