/**
 * The payments ledger: one row per payment attempt. A payment is reserved (row `pending`, `signed_at` set)
 * before its signature is made, against the agent's per-day counter (`agent_spend_days`), so parallel
 * payments cannot overshoot the daily cap.
 */
import { type Clock, newId } from "@svc/common";
import type { Database } from "@svc/db";
import { type AgentPayment, agentPayments, agentSpendDays } from "@svc/db/schema";
import { and, eq, sql } from "drizzle-orm";
import type { PaymentRecord } from "./inputs";
import { formatMicroUsd } from "./money";
import { microUsdOf, type PaymentOffer, type SpendingPolicy } from "./policy";

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

/** The UTC day of `now`, `YYYY-MM-DD`. */
const utcDay = (now: Date) => now.toISOString().slice(0, 10);

/**
 * Reserves the offer against the agent's daily cap and records it `pending`, in one statement: the upsert of
 * the day's counter only updates while `spent + amount <= cap` (re-checked on the locked row, so parallel
 * payments cannot overshoot), and the ledger row is inserted only from the upsert's result. When it does not
 * fit, a `refused` row names the cap.
 */
export async function reservePayment(
  deps: { db: Database; clock: Clock; config: SpendingPolicy },
  attempt: PaymentAttempt,
  offer: PaymentOffer,
): Promise<
  { reserved: true; row: Pick<AgentPayment, "id" | "reason"> } | { reserved: false; row: AgentPayment }
> {
  const now = deps.clock.now();
  const day = utcDay(now);
  const amount = microUsdOf(offer);
  const cap = deps.config.AGENT_PAYMENT_DAILY_USD;
  const id = newId("pay");
  if (amount <= cap) {
    // Data-modifying CTE (drizzle has no insert…select from a CTE): plain parameterized SQL.
    const reserved = await deps.db.execute<{ id: string }>(sql`
      with reserved as (
        insert into agent_spend_days as s (user_id, agent_id, day, spent_micro_usd)
        values (${attempt.userId}, ${attempt.agentId}, ${day}, ${amount.toString()}::bigint)
        on conflict (user_id, agent_id, day) do update
          set spent_micro_usd = s.spent_micro_usd + excluded.spent_micro_usd
          where s.spent_micro_usd + excluded.spent_micro_usd <= ${cap.toString()}::bigint
        returning 1
      )
      insert into agent_payments (id, user_id, agent_id, host, method, protocol, network, asset, recipient,
                                  amount_atomic, amount_micro_usd, outcome, signed_at, created_at)
      select ${id}, ${attempt.userId}, ${attempt.agentId}, ${attempt.host}, ${attempt.method}, ${offer.protocol},
             ${offer.network}, ${offer.asset}, ${offer.recipient}, ${offer.amountAtomic.toString()}::numeric,
             ${amount.toString()}::bigint, 'pending', ${now.toISOString()}::timestamptz, ${now.toISOString()}::timestamptz
      from reserved
      returning id`);
    if (reserved.rows[0]) return { reserved: true, row: { id, reason: null } };
  }
  const [today] = await deps.db
    .select({ spent: agentSpendDays.spentMicroUsd })
    .from(agentSpendDays)
    .where(
      and(
        eq(agentSpendDays.userId, attempt.userId),
        eq(agentSpendDays.agentId, attempt.agentId),
        eq(agentSpendDays.day, day),
      ),
    );
  const reason = `the daily cap of ${formatMicroUsd(cap)} USD would be passed (${formatMicroUsd(today?.spent ?? 0n)} USD signed today)`;
  return { reserved: false, row: await recordUnsigned(deps, attempt, offer, "refused", reason) };
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
