import { sql } from "drizzle-orm";
import {
  type AnyPgColumn,
  bigint,
  boolean,
  check,
  index,
  jsonb,
  numeric,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt } from "./columns";

// Accounts: one row per user (sign-in, plan, free trial, referrals).
// Email is stored lower-case so the unique constraint is case-insensitive.
export const users = pgTable(
  "users",
  {
    id: text("id").primaryKey(),
    email: text("email").notNull().unique(),
    name: text("name").notNull(),
    /** bcrypt hash; null for identity-provider-only or passkey-only accounts. */
    passwordHash: text("password_hash"),
    emailVerifiedAt: timestamptz("email_verified_at"),
    isAdmin: boolean("is_admin").notNull().default(false),
    plan: text("plan").notNull().default("solo"),
    paymentsSubscriptionId: text("payments_subscription_id"),
    /** Start of the 7-day free trial. */
    trialStartedAt: timestamptz("trial_started_at"),
    /** Alphanumeric with hyphens, max 20; matched case-insensitively through the lower() unique index. */
    referralCode: text("referral_code").notNull().unique(),
    referredBy: text("referred_by").references((): AnyPgColumn => users.id, {
      onDelete: "set null",
    }),
    /** Set by a RISC `account-disabled` event: identity-provider sign-in refused until `account-enabled`. */
    idpSignInBlockedAt: timestamptz("idp_sign_in_blocked_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("users_email_lower_case", sql`${t.email} = lower(${t.email})`),
    check("users_referral_code_format", sql`${t.referralCode} ~ '^[A-Za-z0-9-]{1,20}$'`),
    uniqueIndex("users_referral_code_lower_idx").on(sql`lower(${t.referralCode})`),
    index("users_referred_by_idx").on(t.referredBy),
  ],
);
export type User = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;

// One-time email verification tokens, stored as SHA-256 hashes (account sign-up).
export const emailVerificationTokens = pgTable(
  "email_verification_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("email_verification_tokens_user_id_idx").on(t.userId)],
);
export type EmailVerificationToken = typeof emailVerificationTokens.$inferSelect;
export type NewEmailVerificationToken = typeof emailVerificationTokens.$inferInsert;

// Single-use links of the account's own actions, mailed to the person (issue 26): `password_reset` (1 hour)
// and `email_change` (24 hours, to the new address it names). The link carries `<id>.<secret>`; only the
// secret's SHA-256 is stored, compared in constant time after the row is found by its id.
export const accountTokens = pgTable(
  "account_tokens",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    purpose: text("purpose").$type<"password_reset" | "email_change">().notNull(),
    secretHash: text("secret_hash").notNull(),
    /** `email_change`: the address to confirm (lower-case). */
    newEmail: text("new_email"),
    expiresAt: timestamptz("expires_at").notNull(),
    usedAt: timestamptz("used_at"),
    createdAt: createdAt(),
  },
  (t) => [
    check("account_tokens_purpose", sql`${t.purpose} in ('password_reset', 'email_change')`),
    check("account_tokens_new_email", sql`(${t.purpose} = 'email_change') = (${t.newEmail} is not null)`),
    index("account_tokens_user_id_idx").on(t.userId),
  ],
);
export type AccountToken = typeof accountTokens.$inferSelect;
export type NewAccountToken = typeof accountTokens.$inferInsert;

// Sign-in sessions behind the `svc-session` cookie (30-day lifetime).
// Only the SHA-256 hash of the 32-byte cookie token is stored.
export const sessions = pgTable(
  "sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull().unique(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: createdAt(),
    lastSeenAt: timestamptz("last_seen_at").notNull().defaultNow(),
    userAgent: text("user_agent"),
    ip: text("ip"),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId), index("sessions_expires_at_idx").on(t.expiresAt)],
);
export type Session = typeof sessions.$inferSelect;
export type NewSession = typeof sessions.$inferInsert;

// Identity-provider account links created by GET /api/auth/idp/callback; OAuth tokens are encrypted at rest.
export const idpAccounts = pgTable(
  "idp_accounts",
  {
    provider: text("provider").notNull(),
    providerAccountId: text("provider_account_id").notNull(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    accessTokenEncrypted: text("access_token_encrypted"),
    refreshTokenEncrypted: text("refresh_token_encrypted"),
    idTokenEncrypted: text("id_token_encrypted"),
    scope: text("scope"),
    expiresAt: timestamptz("expires_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    primaryKey({
      name: "idp_accounts_pk",
      columns: [t.provider, t.providerAccountId],
    }),
    index("idp_accounts_user_id_idx").on(t.userId),
  ],
);
export type IdpAccount = typeof idpAccounts.$inferSelect;
export type NewIdpAccount = typeof idpAccounts.$inferInsert;

// WebAuthn credentials registered through /api/passkey/register/*; id is the credential id.
export const passkeys = pgTable(
  "passkeys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** COSE public key, base64url. */
    publicKey: text("public_key").notNull(),
    /** WebAuthn counters are unsigned 32-bit, beyond the range of `integer`. */
    signCount: bigint("sign_count", { mode: "number" }).notNull().default(0),
    transports: text("transports").array().notNull().default(sql`'{}'::text[]`),
    /** `singleDevice` or `multiDevice`, as reported at registration. */
    deviceType: text("device_type"),
    backedUp: boolean("backed_up").notNull().default(false),
    label: text("label").notNull().default("Passkey"),
    createdAt: createdAt(),
    lastUsedAt: timestamptz("last_used_at"),
  },
  (t) => [
    index("passkeys_user_id_idx").on(t.userId),
    check("passkeys_sign_count_non_negative", sql`${t.signCount} >= 0`),
  ],
);
export type Passkey = typeof passkeys.$inferSelect;
export type NewPasskey = typeof passkeys.$inferInsert;

// Outstanding WebAuthn challenges ('0x' hex, 5-minute default TTL) for registration and authentication.
export const passkeyChallenges = pgTable(
  "passkey_challenges",
  {
    challenge: text("challenge").primaryKey(),
    /** Set for registration (session user) and for authentication (user found by identifier). */
    userId: text("user_id").references(() => users.id, {
      onDelete: "cascade",
    }),
    purpose: text("purpose").$type<"register" | "authenticate">().notNull(),
    expiresAt: timestamptz("expires_at").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    check("passkey_challenges_purpose", sql`${t.purpose} in ('register', 'authenticate')`),
    check("passkey_challenges_hex", sql`starts_with(${t.challenge}, '0x')`),
    index("passkey_challenges_expires_at_idx").on(t.expiresAt),
  ],
);
export type PasskeyChallenge = typeof passkeyChallenges.$inferSelect;
export type NewPasskeyChallenge = typeof passkeyChallenges.$inferInsert;

// API keys for programmatic access (max 10 per account): raw `svc_...` value shown once,
// stored as a SHA-256 hash, first 10 characters kept as the lookup prefix. `scopes` (common/src/api-scopes.ts)
// limit what the key reaches; its default is what keys reached before scopes existed, which the rows made
// then were given. `expires_at` null: the key does not expire.
export const apiKeys = pgTable(
  "api_keys",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    prefix: text("prefix").notNull(),
    keyHash: text("key_hash").notNull().unique(),
    scopes: text("scopes").array().notNull().default(sql`'{board:write,approvals:write}'::text[]`),
    expiresAt: timestamptz("expires_at"),
    lastUsedAt: timestamptz("last_used_at"),
    createdAt: createdAt(),
    revokedAt: timestamptz("revoked_at"),
  },
  (t) => [
    index("api_keys_user_id_idx").on(t.userId),
    index("api_keys_prefix_idx").on(t.prefix),
    check("api_keys_prefix_format", sql`char_length(${t.prefix}) = 10 and starts_with(${t.prefix}, 'svc_')`),
    check("api_keys_scopes_present", sql`cardinality(${t.scopes}) > 0`),
  ],
);
export type ApiKey = typeof apiKeys.$inferSelect;
export type NewApiKey = typeof apiKeys.$inferInsert;

// Referral credit ledger: a valid referral code at POST /api/register credits both the new user and the referrer.
// The unique key makes a credit for one (user, reason, related user) idempotent.
export const referralCredits = pgTable(
  "referral_credits",
  {
    id: text("id").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    amount: numeric("amount", { precision: 12, scale: 2 }).notNull(),
    /** For example `referral_signup` (new user) or `referral_reward` (referrer). */
    reason: text("reason").notNull(),
    relatedUserId: text("related_user_id").references(() => users.id, {
      onDelete: "set null",
    }),
    createdAt: createdAt(),
  },
  (t) => [
    index("referral_credits_user_id_idx").on(t.userId),
    unique("referral_credits_once").on(t.userId, t.reason, t.relatedUserId),
  ],
);
export type ReferralCredit = typeof referralCredits.$inferSelect;
export type NewReferralCredit = typeof referralCredits.$inferInsert;

// Security event tokens already processed by POST /api/security/risc, deduplicated by `jti`.
export const processedSecurityEvents = pgTable("processed_security_events", {
  jti: text("jti").primaryKey(),
  receivedAt: timestamptz("received_at").notNull().defaultNow(),
  /** The token's `events` claim: event URI to event data. */
  events: jsonb("events").$type<Record<string, unknown>>().notNull(),
});
export type ProcessedSecurityEvent = typeof processedSecurityEvents.$inferSelect;
export type NewProcessedSecurityEvent = typeof processedSecurityEvents.$inferInsert;
