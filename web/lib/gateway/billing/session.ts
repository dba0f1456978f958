/**
 * Pre-funded payment sessions: opened by paying a deposit with an
 * MPP credential (its signer is the session's wallet), then debited per call off-chain. Each debit checks and
 * takes the price in the database (the row lock serializes calls of one session, the balance never goes
 * negative) and records the voucher `session:<sessionId>:<nonce>`; if the voucher cannot be recorded nothing
 * is debited. Calls of a busy session are debited in batches, each exactly as alone (SessionDebitQueue). A
 * refund gives a debit back in one statement.
 */
import { newId } from "@svc/common";
import { histogram } from "@svc/common/metrics/index";
import type { Database } from "@svc/db";
import { paymentSessions } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import type { WebContext } from "../../infra/context";
import {
  depositOutOfRange,
  idempotencyInProgress,
  insufficientBalance,
  sessionInvalid,
  sessionNotFound,
  voucherFailed,
} from "../errors";
import type { PaymentSessionView } from "../inputs";
import { microsToUsd, numericToMicros, usdToMicros } from "../pricing";
import { MppAlreadySettled, type MppCharge, settleMppPayment, verifyMppCredential } from "./mpp";

/** ≥ 128 random bits: 26 characters of a 36-letter alphabet. */
const SESSION_ID_LENGTH = 26;
/** Largest answer kept for Idempotency-Key replays (its body, base64 in the voucher row). */
export const MAX_STORED_ANSWER_BYTES = 1024 * 1024;

/** What opening a session for `depositUsd` costs, as an MPP charge; 400 outside the configured range. */
export function depositCharge(ctx: WebContext, depositUsd: string): MppCharge {
  const micros = usdToMicros(depositUsd);
  const min = usdToMicros(ctx.config.SESSION_MIN_DEPOSIT_USD);
  const max = usdToMicros(ctx.config.SESSION_MAX_DEPOSIT_USD);
  if (micros < min || micros > max) throw depositOutOfRange(microsToUsd(min), microsToUsd(max));
  return { micros, description: "payment session deposit", scope: "session-deposit" };
}

/**
 * Verifies and settles the deposit credential, then opens the session for its signer. The session is keyed
 * by the deposit's transaction (`funding_tx_hash`, unique): a copy of a deposit credential that was settled
 * before (the process stopped, or the session insert failed, after settling; or the answer was lost) opens
 * that deposit's session if it does not exist yet, or answers it, so a settled deposit always yields exactly
 * one session however many copies arrive at once.
 */
export async function openPaymentSession(
  ctx: WebContext,
  credential: string,
  charge: MppCharge,
): Promise<PaymentSessionView> {
  const payment = await verifyMppCredential(ctx.config, credential, charge);
  let txHash: string;
  try {
    txHash = await settleMppPayment(ctx, payment, "session-deposit");
  } catch (err) {
    if (!(err instanceof MppAlreadySettled) || err.purpose !== "session-deposit") throw err;
    txHash = err.transaction;
  }
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.config.SESSION_TTL_HOURS * 3_600_000);
  await ctx.db
    .insert(paymentSessions)
    .values({
      id: newId("ps", SESSION_ID_LENGTH),
      walletAddress: payment.payer,
      balanceUsd: microsToUsd(charge.micros),
      fundingTxHash: txHash,
      expiresAt,
    })
    .onConflictDoNothing({ target: paymentSessions.fundingTxHash });
  const [row] = await ctx.db.select().from(paymentSessions).where(eq(paymentSessions.fundingTxHash, txHash));
  return viewOf(row.id, row.walletAddress, row.balanceUsd, row.expiresAt ?? expiresAt);
}

/** `GET /api/wallet/sessions/:id` with `X-Wallet-Address`: 404 for an unknown id or another wallet. */
export async function readPaymentSession(
  db: Database,
  id: string,
  wallet: string,
): Promise<PaymentSessionView> {
  const result = await db.execute<{
    id: string;
    wallet_address: string;
    balance: string;
    expires_at: Date;
  }>(sql`
    select id, wallet_address, balance_usd::text as balance, expires_at from payment_sessions
    where id = ${id} and wallet_address = ${wallet.toLowerCase()}`);
  const row = result.rows[0];
  if (!row) throw sessionNotFound();
  return viewOf(row.id, row.wallet_address, row.balance, new Date(row.expires_at));
}

/** Whether `id` is an active payment session of `wallet`, unexpired at `now` (an `auth` plugin's caller). */
export async function isActivePaymentSession(
  db: Database,
  id: string,
  wallet: string,
  now: Date,
): Promise<boolean> {
  const result = await db.execute(sql`
    select 1 from payment_sessions
    where id = ${id} and wallet_address = ${wallet.toLowerCase()} and status = 'active' and expires_at > ${now}`);
  return result.rows.length > 0;
}

function viewOf(id: string, wallet: string, balance: string, expiresAt: Date): PaymentSessionView {
  return {
    sessionId: id,
    walletAddress: wallet,
    balance: microsToUsd(numericToMicros(balance)),
    expiresAt: expiresAt.toISOString(),
  };
}

export interface SessionDebitRequest {
  sessionId: string;
  wallet: string;
  micros: bigint;
  pluginId: string;
  idempotencyKey: string | null;
  now: Date;
}

export interface StoredAnswer {
  status: number;
  contentType: string | null;
  body: Buffer;
}

/** An answer to keep for replays; a null body: the call was answered but its answer is not whole. */
export type AnswerToKeep = Omit<StoredAnswer, "body"> & { body: Buffer | null };

export type SessionDebit =
  | { kind: "debited"; voucher: string; remaining: bigint }
  | { kind: "replay"; voucher: string; remaining: bigint; answer: StoredAnswer }
  /** `status` null: no answer was ever recorded (the lease ran out, see ANSWER_LEASE_MS). */
  | { kind: "not_kept"; voucher: string; remaining: bigint; status: number | null };

/**
 * Debits one call: a new voucher, or (same Idempotency-Key) the first call's voucher and answer, debiting
 * nothing; `not_kept` when the first call was answered (with `status`) but its answer was not kept. 402
 * `session_invalid`, `insufficient_balance` (with remaining and cost) or `voucher_failed`; 409
 * `idempotency_in_progress` while the first call is still being answered.
 */
export async function debitPaymentSession(db: Database, call: SessionDebitRequest): Promise<SessionDebit> {
  const wallet = call.wallet.toLowerCase();
  if (call.idempotencyKey) {
    const replay = await replayOf(db, call.sessionId, wallet, call.idempotencyKey, call.now);
    if (replay) return replay;
  }
  const result = await debitQueue(db).debit({ ...call, wallet });
  switch (result.outcome) {
    case "debited":
      return { kind: "debited", voucher: result.voucher, remaining: numericToMicros(result.remaining) };
    case "insufficient":
      throw insufficientBalance(microsToUsd(numericToMicros(result.remaining)), microsToUsd(call.micros));
    case "invalid":
      throw sessionInvalid();
    case "idempotent": {
      const replay =
        call.idempotencyKey && (await replayOf(db, call.sessionId, wallet, call.idempotencyKey, call.now));
      if (replay) return replay;
      throw voucherFailed();
    }
    default:
      throw voucherFailed();
  }
}

/** Most calls of one session debited by one statement. */
export const MAX_DEBIT_BATCH = 50;

export const sessionDebitBatch = histogram({
  name: "gateway_session_debits_per_statement",
  help: "Payment-session calls debited by one database statement (calls of a busy session go together)",
  buckets: [1, 2, 5, 10, 20, MAX_DEBIT_BATCH],
});

type DebitOutcome =
  | { outcome: "debited"; voucher: string; remaining: string }
  | { outcome: "insufficient"; remaining: string }
  | { outcome: "invalid" | "idempotent" | "voucher_failed" };

interface QueuedDebit {
  call: SessionDebitRequest;
  settle: (outcome: DebitOutcome) => void;
}

/**
 * Group commit per session: a call whose session has no debit in flight goes to the database at once; the
 * calls that arrive meanwhile wait for it and then go together, in their order, in one statement
 * (`debit_payment_session`, migration 0013), which debits each exactly as a statement of its own would.
 * The row lock serializes a session's debits either way; this takes it once per batch instead of once per
 * call, so a busy session is not held to one database round trip per call. Other processes' debits of the
 * same session interleave through the same row lock.
 */
class SessionDebitQueue {
  private readonly waiting = new Map<string, QueuedDebit[]>();

  constructor(private readonly db: Database) {}

  debit(call: SessionDebitRequest): Promise<DebitOutcome> {
    return new Promise((settle) => {
      const queued = this.waiting.get(call.sessionId);
      if (queued) {
        queued.push({ call, settle });
        return;
      }
      this.waiting.set(call.sessionId, []);
      void this.flush(call.sessionId, [{ call, settle }]);
    });
  }

  private async flush(sessionId: string, batch: QueuedDebit[]): Promise<void> {
    let current = batch;
    for (;;) {
      await this.run(current);
      const queued = this.waiting.get(sessionId) ?? [];
      if (queued.length === 0) {
        this.waiting.delete(sessionId);
        return;
      }
      current = queued.splice(0, MAX_DEBIT_BATCH);
    }
  }

  /**
   * One statement per wallet in the batch (a batch is one session's, normally one wallet's). Each call's
   * expiry is checked at its own arrival time, exactly as a statement of its own would check it.
   */
  private async run(batch: QueuedDebit[]): Promise<void> {
    const groups = new Map<string, QueuedDebit[]>();
    for (const item of batch) {
      const group = groups.get(item.call.wallet);
      if (group) group.push(item);
      else groups.set(item.call.wallet, [item]);
    }
    for (const group of groups.values()) {
      const [{ call }] = group;
      const calls = group.map((item) => ({
        amount: microsToUsd(item.call.micros),
        plugin: item.call.pluginId,
        key: item.call.idempotencyKey,
        now: item.call.now.toISOString(),
      }));
      sessionDebitBatch.observe(group.length);
      try {
        const { rows } = await this.db.execute<{
          ord: number;
          outcome: DebitOutcome["outcome"];
          voucher: string | null;
          remaining: string | null;
        }>(sql`
          select ord, outcome, voucher, remaining from debit_payment_session(
            ${call.sessionId}, ${call.wallet}, ${JSON.stringify(calls)}::jsonb)`);
        for (const row of rows) group[row.ord - 1].settle(row as DebitOutcome);
        // Every call has its row; were one missing, its caller would hear voucher_failed, not wait forever
        // (a promise settles once: the rows above came first).
        for (const item of group) item.settle({ outcome: "voucher_failed" });
      } catch {
        // The statement did not run at all: nothing was debited.
        for (const item of group) item.settle({ outcome: "voucher_failed" });
      }
    }
  }
}

const debitQueues = new WeakMap<Database, SessionDebitQueue>();

function debitQueue(db: Database): SessionDebitQueue {
  let queue = debitQueues.get(db);
  if (!queue) {
    queue = new SessionDebitQueue(db);
    debitQueues.set(db, queue);
  }
  return queue;
}

/**
 * How long the first call of an Idempotency-Key may take to record its answer. A voucher still without one
 * after this was being answered by a process that stopped (or could not write the answer): no answer will
 * come, so a replay hears `idempotency_answer_not_kept` (paid once, not replayable) instead of
 * `idempotency_in_progress` for ever. Well beyond the 30 s upstream timeout; a stream still running after
 * it is treated the same way (its answer, when it ends, is recorded but no longer awaited).
 */
export const ANSWER_LEASE_MS = 15 * 60_000;

async function replayOf(
  db: Database,
  sessionId: string,
  wallet: string,
  key: string,
  now: Date,
): Promise<SessionDebit | null> {
  const result = await db.execute<{
    voucher: string;
    status: number | null;
    content_type: string | null;
    body: string | null;
    remaining: string;
    lease_over: boolean;
  }>(sql`
    select v.id as voucher, v.response_status as status, v.response_content_type as content_type,
      v.response_body as body, s.balance_usd::text as remaining,
      v.created_at <= ${new Date(now.getTime() - ANSWER_LEASE_MS).toISOString()}::timestamptz as lease_over
    from payment_session_vouchers v join payment_sessions s on s.id = v.session_id
    where v.session_id = ${sessionId} and s.wallet_address = ${wallet} and v.idempotency_key = ${key}`);
  const row = result.rows[0];
  if (!row) return null;
  if (row.status === null) {
    if (!row.lease_over) throw idempotencyInProgress();
    return {
      kind: "not_kept",
      voucher: row.voucher,
      remaining: numericToMicros(row.remaining),
      status: null,
    };
  }
  if (row.body === null) {
    return {
      kind: "not_kept",
      voucher: row.voucher,
      remaining: numericToMicros(row.remaining),
      status: row.status,
    };
  }
  return {
    kind: "replay",
    voucher: row.voucher,
    remaining: numericToMicros(row.remaining),
    answer: {
      status: row.status,
      contentType: row.content_type,
      body: Buffer.from(row.body, "base64"),
    },
  };
}

/**
 * Keeps the answer of a voucher for replays of its Idempotency-Key. An oversize or broken answer is not
 * kept, but its status is: a replay then hears that the call was answered and paid (a status without a body).
 */
export async function storeVoucherAnswer(db: Database, voucher: string, answer: AnswerToKeep): Promise<void> {
  const body =
    answer.body && answer.body.length <= MAX_STORED_ANSWER_BYTES ? answer.body.toString("base64") : null;
  await db.execute(sql`
    update payment_session_vouchers
    set response_status = ${answer.status}, response_content_type = ${answer.contentType},
      response_body = ${body}
    where id = ${voucher}`);
}

/**
 * Gives a voucher's debit back (the plugin failed), once, in one statement; its Idempotency-Key is released
 * so the caller can try again with it. The balance afterwards.
 */
export async function refundVoucher(db: Database, voucher: string): Promise<bigint | null> {
  const result = await db.execute<{ remaining: string }>(sql`
    with refunded as (
      update payment_session_vouchers set refunded_at = now(), idempotency_key = null
      where id = ${voucher} and refunded_at is null
      returning session_id, amount_usd
    )
    update payment_sessions s set balance_usd = s.balance_usd + r.amount_usd, updated_at = now()
    from refunded r where s.id = r.session_id
    returning s.balance_usd::text as remaining`);
  const row = result.rows[0];
  return row ? numericToMicros(row.remaining) : null;
}
