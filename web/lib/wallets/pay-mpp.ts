/**
 * Paying an MPP seller (`WWW-Authenticate: Payment`, `evm/charge`) with the mppx client: the challenge is
 * checked against the spending policy and the daily cap reserved before the credential is signed; the
 * credential goes back once, on the same request.
 */
import { Receipt } from "mppx";
import { evm, Mppx } from "mppx/client";
import { isRawAmount, MAX_AMOUNT_DIGITS } from "../chain/units";
import { paymentFailed } from "./errors";
import type { PaymentResult } from "./inputs";
import { reservePayment } from "./ledger";
import { failSigned, finish, type PayArgs, paymentsCounter, refuse } from "./payment-flow";
import { type PaymentOffer, refusalOf } from "./policy";

/** mppx knows the EIP-712 domain of these assets; an allowed asset must be one of them to be paid by MPP. */
const MPP_ASSETS = [evm.assets.base.USDC, evm.assets.baseSepolia.USDC];

export async function payMpp(args: PayArgs): Promise<PaymentResult> {
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
  // The seller's challenge is untrusted: an amount BigInt cannot read, or longer than any real price, is refused.
  if (!isRawAmount(request.amount))
    return refuse(
      args,
      null,
      `the seller's payment offer is malformed: its amount is not a whole number of atomic units (at most ${MAX_AMOUNT_DIGITS} digits)`,
    );
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
