/**
 * The payments ledger: one row per payment attempt. A payment is reserved (row `pending`, `signed_at` set)
 * before its signature is made, under a per-agent transaction advisory lock that sums what the agent signed
 * since the start of the UTC day, so parallel payments cannot overshoot the daily cap.
 */
import { type Clock, newId } from "@svc/common";
import type { Database } from "@svc/db";
import { type AgentPayment, agentPayments } from "@svc/db/schema";
import { and, eq, gte, isNotNull, sql } from "drizzle-orm";
import { formatMicroUsd } from "./money";
import { microUsdOf, type PaymentOffer, type SpendingPolicy } from "./policy";
import type { PaymentRecord } from "./schema";

export interface PaymentAttempt {
  userId: string;
  agentId: string;
  host: string;
  method: string;
}

export function paymentView(row: AgentPayment): PaymentRecord {
  return {
    id: row.id,
    agentId: row.agentId,
    host: row.host,
    method: row.method,
    protocol: row.protocol,
    network: row.network,
    asset: row.asset,
    recipient: row.recipient,
    amountUsd: row.amountMicroUsd === null ? null : formatMicroUsd(row.amountMicroUsd),
    outcome: row.outcome as PaymentRecord["outcome"],
    reason: row.reason,
    reference: row.reference,
    status: row.status,
    createdAt: row.createdAt.toISOString(),
  };
}

const offerColumns = (offer: PaymentOffer | null) =>
  offer
    ? {
        protocol: offer.protocol,
        network: offer.network,
        asset: offer.asset,
        recipient: offer.recipient,
        amountAtomic: offer.amountAtomic.toString(),
        amountMicroUsd: microUsdOf(offer),
      }
    : {};

/** Records an attempt that ends before anything is signed (refused by the policy, or no payable offer). */
export async function recordUnsigned(
  deps: { db: Database; clock: Clock },
  attempt: PaymentAttempt,
  offer: PaymentOffer | null,
  outcome: "refused" | "error",
  reason: string,
): Promise<AgentPayment> {
  const [row] = await deps.db
    .insert(agentPayments)
    .values({
      id: newId("pay"),
      ...attempt,
      ...offerColumns(offer),
      outcome,
      reason,
      createdAt: deps.clock.now(),
    })
    .returning();
  return row;
}

const startOfUtcDay = (now: Date) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));

/**
 * Reserves the offer against the agent's daily cap: a `pending` row when it fits, else a `refused` row
 * naming the cap. The sum and the insert run under the agent's lock, one transaction.
 */
export async function reservePayment(
  deps: { db: Database; clock: Clock; config: SpendingPolicy },
  attempt: PaymentAttempt,
  offer: PaymentOffer,
): Promise<{ reserved: true; row: AgentPayment } | { reserved: false; row: AgentPayment }> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await tx.execute(
      sql`select pg_advisory_xact_lock(hashtext(${`agent-pay:${attempt.userId}:${attempt.agentId}`}))`,
    );
    const [spent] = await tx
      .select({ total: sql<string>`coalesce(sum(${agentPayments.amountMicroUsd}), 0)::text` })
      .from(agentPayments)
      .where(
        and(
          eq(agentPayments.userId, attempt.userId),
          eq(agentPayments.agentId, attempt.agentId),
          isNotNull(agentPayments.signedAt),
          gte(agentPayments.signedAt, startOfUtcDay(now)),
        ),
      );
    const total = BigInt(spent?.total ?? "0");
    const cap = deps.config.AGENT_PAYMENT_DAILY_USD;
    const fits = total + microUsdOf(offer) <= cap;
    const [row] = await tx
      .insert(agentPayments)
      .values({
        id: newId("pay"),
        ...attempt,
        ...offerColumns(offer),
        outcome: fits ? "pending" : "refused",
        reason: fits
          ? null
          : `the daily cap of ${formatMicroUsd(cap)} USD would be passed (${formatMicroUsd(total)} USD signed today)`,
        signedAt: fits ? now : null,
        createdAt: now,
      })
      .returning();
    return { reserved: fits, row } as const;
  });
}

/** The end of a reserved payment: paid (with the seller's reference) or failed (with why). */
export async function settlePayment(
  db: Database,
  id: string,
  result: {
    outcome: "paid" | "failed";
    reference?: string | null;
    status?: number | null;
    reason?: string | null;
  },
): Promise<AgentPayment> {
  const [row] = await db
    .update(agentPayments)
    .set({
      outcome: result.outcome,
      reference: result.reference ?? null,
      status: result.status ?? null,
      reason: result.reason ?? null,
    })
    .where(eq(agentPayments.id, id))
    .returning();
  return row;
}
