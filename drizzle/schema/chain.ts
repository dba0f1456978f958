import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  date,
  index,
  integer,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  unique,
} from "drizzle-orm/pg-core";
import { users } from "./accounts";
import { createdAt, timestamptz, updatedAt } from "./columns";

// Agent wallets used by /api/agent/mpp: one per (owner, agentId). The ECDSA private key is
// AES-256-GCM encrypted and never returned. agentId/companyId are caller-chosen strings, so no foreign keys.
export const agentWallets = pgTable(
  "agent_wallets",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    companyId: text("company_id").notNull(),
    address: text("address").notNull(),
    encryptedPrivateKey: text("encrypted_private_key").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({ name: "agent_wallets_pk", columns: [t.userId, t.agentId] }),
    check("agent_wallets_address", sql`${t.address} ~ '^0x[0-9a-fA-F]{40}$'`),
  ],
);
export type AgentWallet = typeof agentWallets.$inferSelect;
export type NewAgentWallet = typeof agentWallets.$inferInsert;

// Pre-funded payment sessions for gateway session billing (POST /api/wallet/sessions). The gateway checks and debits `balanceUsd` off-chain, bumping `nonce` per voucher.
export const paymentSessions = pgTable(
  "payment_sessions",
  {
    id: text("id").primaryKey(),
    /** Owning wallet, 0x-prefixed, stored lower-case. */
    walletAddress: text("wallet_address").notNull(),
    /** Signed-in user who opened it, when any. */
    userId: text("user_id").references(() => users.id, {
      onDelete: "set null",
    }),
    balanceUsd: numeric("balance_usd", { precision: 18, scale: 6 }).notNull().default("0"),
    /** Nonce of the last voucher issued. */
    nonce: integer("nonce").notNull().default(0),
    /** For example active, closed, expired. */
    status: text("status").notNull().default("active"),
    /** On-chain deposit that funded the session; unique so one deposit funds one session. */
    fundingTxHash: text("funding_tx_hash").unique(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    expiresAt: timestamptz("expires_at"),
  },
  (t) => [
    check("payment_sessions_wallet_address", sql`${t.walletAddress} ~ '^0x[0-9a-f]{40}$'`),
    check("payment_sessions_balance_non_negative", sql`${t.balanceUsd} >= 0`),
    check("payment_sessions_nonce_non_negative", sql`${t.nonce} >= 0`),
    index("payment_sessions_wallet_address_idx").on(t.walletAddress),
  ],
);
export type PaymentSession = typeof paymentSessions.$inferSelect;
export type NewPaymentSession = typeof paymentSessions.$inferInsert;

// Ledger of session debits; each is the voucher `session:<sessionId>:<nonce>` returned in Payment-Receipt.
export const paymentSessionVouchers = pgTable(
  "payment_session_vouchers",
  {
    id: text("id").primaryKey(),
    sessionId: text("session_id")
      .notNull()
      .references(() => paymentSessions.id, { onDelete: "cascade" }),
    nonce: integer("nonce").notNull(),
    amountUsd: numeric("amount_usd", { precision: 18, scale: 6 }).notNull(),
    pluginId: text("plugin_id").notNull(),
    /** The caller's `Idempotency-Key`: a replay answers with this voucher's stored answer, debiting nothing. */
    idempotencyKey: text("idempotency_key"),
    /** Set when the upstream failed and the debit went back to the session. */
    refundedAt: timestamptz("refunded_at"),
    /** The first answer, kept for replays of its Idempotency-Key (body base64, capped). */
    responseStatus: integer("response_status"),
    responseContentType: text("response_content_type"),
    responseBody: text("response_body"),
    createdAt: createdAt(),
  },
  (t) => [
    unique("payment_session_vouchers_session_nonce").on(t.sessionId, t.nonce),
    unique("payment_session_vouchers_idempotency_key").on(t.sessionId, t.idempotencyKey),
    check("payment_session_vouchers_amount_non_negative", sql`${t.amountUsd} >= 0`),
  ],
);
export type PaymentSessionVoucher = typeof paymentSessionVouchers.$inferSelect;
export type NewPaymentSessionVoucher = typeof paymentSessionVouchers.$inferInsert;

// MPP credentials already accepted by the gateway, so a payment credential cannot be replayed: one row per
// EIP-3009 authorization `(payer, nonce)`, inserted before it is settled (mppx does not stop replays itself).
export const mppUsedNonces = pgTable(
  "mpp_used_nonces",
  {
    /** The authorization's signer (`from`), lower-case. */
    payer: text("payer").notNull(),
    /** The EIP-3009 nonce (the challenge hash). */
    nonce: text("nonce").notNull(),
    /** Transaction hash of the payment, unique so one payment pays one call. */
    txHash: text("tx_hash").unique(),
    pluginId: text("plugin_id"),
    createdAt: createdAt(),
    /** The challenge's expiry; rows past it can be purged. */
    expiresAt: timestamptz("expires_at"),
  },
  (t) => [
    primaryKey({ name: "mpp_used_nonces_pk", columns: [t.payer, t.nonce] }),
    index("mpp_used_nonces_expires_at_idx").on(t.expiresAt),
  ],
);
export type MppUsedNonce = typeof mppUsedNonces.$inferSelect;
export type NewMppUsedNonce = typeof mppUsedNonces.$inferInsert;

// Per-user layer-1 RPC URL (GET/POST /api/l1/rpc-config); no row means the platform default.
export const userRpcConfigs = pgTable(
  "user_rpc_configs",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    rpcUrl: text("rpc_url").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [check("user_rpc_configs_https", sql`starts_with(${t.rpcUrl}, 'https://')`)],
);
export type UserRpcConfig = typeof userRpcConfigs.$inferSelect;
export type NewUserRpcConfig = typeof userRpcConfigs.$inferInsert;

// Streaming-service (radio) wallet linked by PATCH /api/user/radio-wallet; unlinking deletes the row.
export const radioWallets = pgTable(
  "radio_wallets",
  {
    userId: text("user_id")
      .primaryKey()
      .references(() => users.id, { onDelete: "cascade" }),
    wallet: text("wallet").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [check("radio_wallets_wallet", sql`${t.wallet} ~ '^0x[0-9a-fA-F]{40}$'`)],
);
export type RadioWallet = typeof radioWallets.$inferSelect;
export type NewRadioWallet = typeof radioWallets.$inferInsert;

// Market data shared by every web process (GET /api/l1/price): one row per quote, refreshed at most once per
// cache period by whichever process holds the refresh lock.
export const marketDataCache = pgTable("market_data_cache", {
  key: text("key").primaryKey(),
  value: jsonb("value").notNull(),
  fetchedAt: timestamptz("fetched_at").notNull(),
});
export type MarketDataCacheRow = typeof marketDataCache.$inferSelect;

// Every payment attempt of an agent wallet (POST /api/agent/mpp make-payment on a 402): refused by the spending
// policy (nothing signed), or signed and then paid or failed. Amounts are integer micro-USD; the per-agent daily
// cap is counted in `agent_spend_days`.
export const agentPayments = pgTable(
  "agent_payments",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    host: text("host").notNull(),
    method: text("method").notNull(),
    /** x402-v1, x402-v2 or mpp; null when the offer could not be read. */
    protocol: text("protocol"),
    network: text("network"),
    asset: text("asset"),
    recipient: text("recipient"),
    /** The offer's amount in the asset's smallest unit (a decimal string of any size). */
    amountAtomic: numeric("amount_atomic", { precision: 78, scale: 0 }),
    amountMicroUsd: bigint("amount_micro_usd", { mode: "bigint" }),
    /** pending (reserved, being signed and sent), refused (policy, nothing signed), paid, failed (signed, not
     * accepted), error (no payable offer). */
    outcome: text("outcome").notNull(),
    reason: text("reason"),
    /** The seller's settlement reference (transaction hash or receipt reference), when it gave one. */
    reference: text("reference"),
    /** The target's status after the paid retry. */
    status: integer("status"),
    signedAt: timestamptz("signed_at"),
    createdAt: createdAt(),
  },
  (t) => [
    index("agent_payments_user_agent_created_idx").on(t.userId, t.agentId, t.createdAt),
    check("agent_payments_outcome", sql`${t.outcome} in ('pending', 'refused', 'paid', 'failed', 'error')`),
    check("agent_payments_amount_non_negative", sql`${t.amountMicroUsd} >= 0`),
  ],
);
export type AgentPayment = typeof agentPayments.$inferSelect;
export type NewAgentPayment = typeof agentPayments.$inferInsert;

// What each agent wallet signed per UTC day, in micro-USD: the daily cap is reserved by one atomic upsert of
// this row (`spent + amount <= cap`), so parallel payments cannot overshoot it and no lock is held for long.
export const agentSpendDays = pgTable(
  "agent_spend_days",
  {
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    agentId: text("agent_id").notNull(),
    day: date("day", { mode: "string" }).notNull(),
    spentMicroUsd: bigint("spent_micro_usd", { mode: "bigint" }).notNull(),
  },
  (t) => [
    primaryKey({ name: "agent_spend_days_pk", columns: [t.userId, t.agentId, t.day] }),
    check("agent_spend_days_spent_non_negative", sql`${t.spentMicroUsd} >= 0`),
  ],
);
export type AgentSpendDay = typeof agentSpendDays.$inferSelect;
