/**
 * Pre-funded payment sessions (spec "Gateway plugin and payment session"): opened by paying a deposit with an
 * MPP credential (its signer is the session's wallet), then debited per call off-chain. Each debit is one
 * statement that checks and takes the price (the row lock serializes calls of one session, the balance never
 * goes negative) and records the voucher `session:<sessionId>:<nonce>`; if the voucher cannot be recorded the
 * statement fails whole and nothing is debited. A refund gives a debit back the same way.
 */
import { newId } from "@svc/common";
import type { Database } from "@svc/db";
import { paymentSessions } from "@svc/db/schema";
import { sql } from "drizzle-orm";
import type { WebContext } from "../../context";
import {
  depositOutOfRange,
  idempotencyInProgress,
  insufficientBalance,
  sessionInvalid,
  sessionNotFound,
  voucherFailed,
} from "../errors";
import { microsToUsd, numericToMicros, usdToMicros } from "../pricing";
import type { PaymentSessionView } from "../schema";
import { type MppCharge, settleMppPayment, verifyMppCredential } from "./mpp";

/** ≥ 128 random bits: 26 characters of a 36-letter alphabet. */
const SESSION_ID_LENGTH = 26;
/** Largest answer kept for Idempotency-Key replays (its body, base64 in the voucher row). */
export const MAX_STORED_ANSWER_BYTES = 1024 * 1024;

const usdParam = (micros: bigint) => sql`(${micros.toString()}::numeric / 1000000)`;

/** What opening a session for `depositUsd` costs, as an MPP charge; 400 outside the configured range. */
export function depositCharge(ctx: WebContext, depositUsd: string): MppCharge {
  const micros = usdToMicros(depositUsd);
  const min = usdToMicros(ctx.config.SESSION_MIN_DEPOSIT_USD);
  const max = usdToMicros(ctx.config.SESSION_MAX_DEPOSIT_USD);
  if (micros < min || micros > max) throw depositOutOfRange(microsToUsd(min), microsToUsd(max));
  return { micros, description: "payment session deposit", scope: "session-deposit" };
}

/** Verifies and settles the deposit credential, then opens the session for its signer. */
export async function openPaymentSession(
  ctx: WebContext,
  credential: string,
  charge: MppCharge,
): Promise<PaymentSessionView> {
  const payment = await verifyMppCredential(ctx.config, credential, charge);
  const txHash = await settleMppPayment(ctx.db, ctx.config, payment, "session-deposit");
  const expiresAt = new Date(ctx.clock.now().getTime() + ctx.config.SESSION_TTL_HOURS * 3_600_000);
  const [row] = await ctx.db
    .insert(paymentSessions)
    .values({
      id: newId("ps", SESSION_ID_LENGTH),
      walletAddress: payment.payer,
      balanceUsd: microsToUsd(charge.micros),
      fundingTxHash: txHash,
      expiresAt,
    })
    .returning();
  return viewOf(row.id, row.walletAddress, row.balanceUsd, expiresAt);
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

export type SessionDebit =
  | { kind: "debited"; voucher: string; remaining: bigint }
  | { kind: "replay"; voucher: string; remaining: bigint; answer: StoredAnswer };

/**
 * Debits one call: a new voucher, or (same Idempotency-Key) the first call's voucher and answer, debiting
 * nothing. 402 `session_invalid`, `insufficient_balance` (with remaining and cost) or `voucher_failed`.
 */
export async function debitPaymentSession(db: Database, call: SessionDebitRequest): Promise<SessionDebit> {
  const wallet = call.wallet.toLowerCase();
  if (call.idempotencyKey) {
    const replay = await replayOf(db, call.sessionId, wallet, call.idempotencyKey);
    if (replay) return replay;
  }
  let rows: { voucher: string; remaining: string }[];
  try {
    const result = await db.execute<{ voucher: string; remaining: string }>(sql`
      with debited as (
        update payment_sessions
        set balance_usd = balance_usd - ${usdParam(call.micros)}, nonce = nonce + 1, updated_at = now()
        where id = ${call.sessionId} and wallet_address = ${wallet} and status = 'active'
          and expires_at > ${call.now} and balance_usd >= ${usdParam(call.micros)}
        returning id, nonce, balance_usd
      )
      insert into payment_session_vouchers (id, session_id, nonce, amount_usd, plugin_id, idempotency_key)
      select 'session:' || id || ':' || nonce, id, nonce, ${usdParam(call.micros)}, ${call.pluginId},
        ${call.idempotencyKey}
      from debited
      returning id as voucher, (select balance_usd::text from debited) as remaining`);
    rows = result.rows;
  } catch (err) {
    if (call.idempotencyKey && constraintOf(err) === "payment_session_vouchers_idempotency_key") {
      const replay = await replayOf(db, call.sessionId, wallet, call.idempotencyKey);
      if (replay) return replay;
    }
    throw voucherFailed();
  }
  const row = rows[0];
  if (row) return { kind: "debited", voucher: row.voucher, remaining: numericToMicros(row.remaining) };
  throw await whyNotDebited(db, call, wallet);
}

async function whyNotDebited(db: Database, call: SessionDebitRequest, wallet: string) {
  const result = await db.execute<{ balance: string; usable: boolean }>(sql`
    select balance_usd::text as balance, (status = 'active' and expires_at > ${call.now}) as usable
    from payment_sessions where id = ${call.sessionId} and wallet_address = ${wallet}`);
  const row = result.rows[0];
  if (!row?.usable) return sessionInvalid();
  return insufficientBalance(microsToUsd(numericToMicros(row.balance)), microsToUsd(call.micros));
}

async function replayOf(
  db: Database,
  sessionId: string,
  wallet: string,
  key: string,
): Promise<SessionDebit | null> {
  const result = await db.execute<{
    voucher: string;
    status: number | null;
    content_type: string | null;
    body: string | null;
    remaining: string;
  }>(sql`
    select v.id as voucher, v.response_status as status, v.response_content_type as content_type,
      v.response_body as body, s.balance_usd::text as remaining
    from payment_session_vouchers v join payment_sessions s on s.id = v.session_id
    where v.session_id = ${sessionId} and s.wallet_address = ${wallet} and v.idempotency_key = ${key}`);
  const row = result.rows[0];
  if (!row) return null;
  if (row.status === null) throw idempotencyInProgress();
  return {
    kind: "replay",
    voucher: row.voucher,
    remaining: numericToMicros(row.remaining),
    answer: {
      status: row.status,
      contentType: row.content_type,
      body: Buffer.from(row.body ?? "", "base64"),
    },
  };
}

/** Keeps the answer of a voucher for replays of its Idempotency-Key (an oversize answer is not kept). */
export async function storeVoucherAnswer(db: Database, voucher: string, answer: StoredAnswer): Promise<void> {
  if (answer.body.length > MAX_STORED_ANSWER_BYTES) return;
  await db.execute(sql`
    update payment_session_vouchers
    set response_status = ${answer.status}, response_content_type = ${answer.contentType},
      response_body = ${answer.body.toString("base64")}
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

function constraintOf(err: unknown): string | undefined {
  let current: unknown = err;
  for (let i = 0; i < 3 && current; i++) {
    const constraint = (current as { constraint?: unknown }).constraint;
    if (typeof constraint === "string") return constraint;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
