import { sha256Hex } from "@svc/common";
import type { User } from "@svc/db/schema";
import { sessions, users } from "@svc/db/schema";
import bcrypt from "bcryptjs";
import { and, eq, ne, sql } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeAddressRate, consumeRate, refundRate } from "../infra/ratelimit/service";
import { healClaimedAgents } from "../runtime/operations";
import { signInFirst } from "../sessions/errors";
import { userContextRole } from "../sessions/service";
import { claimUnprovenAccount } from "./claim";
import { invalidResetLink, noPasswordSet, wrongPassword } from "./errors";
import type { ChangePasswordInput, ForgotPasswordInput, ResetPasswordInput } from "./inputs";
import { mailPasswordChanged, mailPasswordResetLink, mailQuietly } from "./mails";
import { BCRYPT_COST } from "./service";
import { consumeAccountToken, issueAccountToken } from "./tokens";
import { findUserByEmail, normalizeEmail } from "./users";

/** A reset link works once, for 1 hour. */
export const PASSWORD_RESET_TTL_MS = 60 * 60 * 1000;
/** "Forgot password" requests from one address: 429 beyond. */
export const FORGOT_PASSWORD_LIMIT = { points: 5, windowMs: 15 * 60 * 1000 };
/** Reset mails to one address an hour; past it requests are answered alike but mail nothing. */
export const RESET_MAILS_PER_EMAIL = { points: 3, windowMs: 60 * 60 * 1000 };
/** Attempts to set a password with a reset link from one address: 429 beyond. */
export const RESET_PASSWORD_LIMIT = { points: 10, windowMs: 15 * 60 * 1000 };
/**
 * Wrong passwords given to change the password or the email or to delete the account, per account: 429
 * beyond, so a stolen session cannot be used to guess the password.
 */
export const PASSWORD_CHECK_LIMIT = { points: 5, windowMs: 15 * 60 * 1000 };

/** The signed-in account's row; 401 when it is gone. */
export async function loadAccount(ctx: Pick<WebContext, "db">, userId: string): Promise<User> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw signInFirst();
  return user;
}

/**
 * Checks the account's password for a sensitive change: 400 naming `field` when wrong, 400 `no_password`
 * for an account without one, 429 past PASSWORD_CHECK_LIMIT wrong ones (counted first, refunded when right,
 * so attempts at once cannot pass the limit together).
 */
export async function checkAccountPassword(
  ctx: WebContext,
  user: User,
  password: string,
  field: "currentPassword" | "password",
): Promise<void> {
  if (!user.passwordHash) throw noPasswordSet();
  const key = `account-password:${user.id}`;
  const limit = await consumeRate(ctx, key, PASSWORD_CHECK_LIMIT);
  if (!limit.allowed) throw rateLimited("wrong passwords", limit.retryAfterSeconds);
  if (!(await bcrypt.compare(password, user.passwordHash))) throw wrongPassword(field);
  await refundRate(ctx, key);
}

/** Counts a "forgot password" request against the client address's window: 429 beyond. */
export async function countForgotPasswordRequest(ctx: WebContext, ip: string): Promise<void> {
  const limit = await consumeAddressRate(ctx, "forgot-password", ip, FORGOT_PASSWORD_LIMIT);
  if (!limit.allowed) throw rateLimited("password reset requests", limit.retryAfterSeconds);
}

/**
 * "Forgot password": mails the account with this email a reset link (the earlier links stop working). The
 * route answers before this runs and the same whatever it finds, so neither the answer nor its timing tells
 * whether an account has the address. Past RESET_MAILS_PER_EMAIL it mails nothing (no mail bombing).
 * Returns whether a mail was sent (for the log and tests only).
 */
export async function requestPasswordReset(ctx: WebContext, input: ForgotPasswordInput): Promise<boolean> {
  const email = normalizeEmail(input.email);
  // Keyed by a digest: the rate-limit table holds no addresses.
  const perEmail = await consumeRate(ctx, `reset-mail:${sha256Hex(email)}`, RESET_MAILS_PER_EMAIL);
  if (!perEmail.allowed) {
    ctx.logger.info("password reset: the address had its mails for this hour; nothing sent");
    return false;
  }
  const user = await findUserByEmail(ctx, email);
  if (!user) return false;
  const token = await ctx.db.transaction((tx) =>
    issueAccountToken(tx, {
      userId: user.id,
      purpose: "password_reset",
      ttlMs: PASSWORD_RESET_TTL_MS,
      now: ctx.clock.now(),
    }),
  );
  await mailPasswordResetLink(ctx, user, token);
  return true;
}

/**
 * Sets a new password with the mailed link: single use, 1 hour (400 `invalid_reset_link` otherwise), 429
 * past RESET_PASSWORD_LIMIT from one address. Every session of the account ends. The link proves the
 * address, so an account whose email was never confirmed is claimed first (`claimUnprovenAccount`: whoever
 * registered the address may not own it, so their passkeys, keys and links go) and counts as confirmed.
 */
export async function resetPassword(
  ctx: WebContext,
  input: ResetPasswordInput,
  ip: string,
): Promise<{ ok: true }> {
  const limit = await consumeAddressRate(ctx, "reset-password", ip, RESET_PASSWORD_LIMIT);
  if (!limit.allowed) throw rateLimited("password reset attempts", limit.retryAfterSeconds);
  const passwordHash = await bcrypt.hash(input.password, BCRYPT_COST);
  const now = ctx.clock.now();
  const outcome = await ctx.db.transaction(async (tx) => {
    const token = await consumeAccountToken(tx, input.token, "password_reset", now);
    if (!token) return undefined;
    const [user] = await tx.select().from(users).where(eq(users.id, token.userId)).for("update");
    const revoked = user.emailVerifiedAt ? [] : await claimUnprovenAccount(tx, user.id, now);
    await tx
      .update(users)
      .set({ passwordHash, emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now})`, updatedAt: now })
      .where(eq(users.id, user.id));
    await tx.delete(sessions).where(eq(sessions.userId, user.id));
    return { user: { ...user, emailVerifiedAt: user.emailVerifiedAt ?? now }, revoked };
  });
  if (!outcome) throw invalidResetLink();
  const { user, revoked } = outcome;
  if (revoked.length > 0) {
    void healClaimedAgents(
      ctx,
      { id: user.id, email: user.email, contextRole: userContextRole(user, ctx.config) },
      revoked,
    );
  }
  await mailQuietly(ctx, "password reset notice", () => mailPasswordChanged(ctx, user, "reset"));
  return { ok: true };
}

/**
 * Settings: a new password, given the current one (see checkAccountPassword). Every other session of the
 * account ends; the one that changed it stays signed in.
 */
export async function changePassword(
  ctx: WebContext,
  session: { sessionId: string; userId: string },
  input: ChangePasswordInput,
): Promise<{ ok: true; sessionsEnded: number }> {
  const user = await loadAccount(ctx, session.userId);
  await checkAccountPassword(ctx, user, input.currentPassword, "currentPassword");
  const passwordHash = await bcrypt.hash(input.newPassword, BCRYPT_COST);
  const now = ctx.clock.now();
  const ended = await ctx.db.transaction(async (tx) => {
    await tx.update(users).set({ passwordHash, updatedAt: now }).where(eq(users.id, user.id));
    return tx
      .delete(sessions)
      .where(and(eq(sessions.userId, user.id), ne(sessions.id, session.sessionId)))
      .returning({ id: sessions.id });
  });
  await mailQuietly(ctx, "password change notice", () => mailPasswordChanged(ctx, user, "changed"));
  return { ok: true, sessionsEnded: ended.length };
}
