/**
 * The steps every payment protocol shares: refusing before signing, ending a signed payment as paid or
 * failed, reading the target's answer, and naming a target's failure; the ledger and the metric follow each.
 */
import { OutboundError } from "@svc/common";
import { counter } from "@svc/common/metrics/index";
import type { AgentPayment } from "@svc/db/schema";
import type { LocalAccount } from "viem";
import type { WebContext } from "../infra/context";
import { paymentFailed, targetFailed, targetRefused } from "./errors";
import type { PaymentResult } from "./inputs";
import { type PaymentAttempt, paymentView, recordUnsigned, settlePayment } from "./ledger";
import type { PaymentOffer, PaymentProtocol } from "./policy";

export function paymentsCounter() {
  return counter<"protocol" | "outcome">({
    name: "agent_payments_total",
    help: "Agent wallet payment attempts by protocol (x402-v1, x402-v2, mpp, none) and outcome (paid, failed, refused, error)",
    labelNames: ["protocol", "outcome"],
  });
}

/** The pending ledger row of a reserved payment. */
export type Reservation = Pick<AgentPayment, "id">;

export interface PayArgs {
  ctx: WebContext;
  attempt: PaymentAttempt;
  account: LocalAccount;
  fetcher: typeof fetch;
  url: URL;
  init: RequestInit;
  first: Response;
  protocol: PaymentProtocol;
}

export function targetError(err: unknown): unknown {
  if (!(err instanceof OutboundError)) return err;
  return err.reason === "refused" ? targetRefused(err.message) : targetFailed(err.message);
}

export async function resultOf(response: Response): Promise<PaymentResult["result"]> {
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
export async function refuse(args: PayArgs, offer: PaymentOffer | null, reason: string): Promise<never> {
  const row = await recordUnsigned(args.ctx, args.attempt, offer, "refused", reason);
  paymentsCounter().inc({ protocol: args.protocol, outcome: "refused" });
  throw paymentFailed(reason, row.id);
}

/** The signed payment's end: paid answers the target's result, failed a 402. */
export async function finish(
  args: PayArgs,
  reservation: Reservation,
  response: Response,
  reference: string | null,
) {
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

export async function failSigned(args: PayArgs, reservation: Reservation, err: unknown): Promise<never> {
  const reason = err instanceof Error ? err.message : String(err);
  await settlePayment(args.ctx.db, reservation.id, { outcome: "failed", reason });
  paymentsCounter().inc({ protocol: args.protocol, outcome: "failed" });
  const mapped = targetError(err instanceof Error && err.cause instanceof OutboundError ? err.cause : err);
  if (mapped !== err && !(mapped instanceof OutboundError)) throw mapped;
  throw paymentFailed(reason, reservation.id);
}
