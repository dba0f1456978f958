import { sha256Hex } from "@svc/common";
import bcrypt from "bcryptjs";
import type { WebContext } from "../infra/context";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeAddressRate, consumeRate, refundRate } from "../infra/ratelimit/service";
import { createSession } from "../sessions/service";
import { invalidCredentials } from "./errors";
import type { LoginInput } from "./inputs";
import { BCRYPT_COST, type RequestMeta } from "./service";
import { findUserByEmail, normalizeEmail } from "./users";

export const LOGIN_LIMIT = { points: 5, windowMs: 15 * 60 * 1000 };

/**
 * Failed password sign-ins per account (by email, whether or not an account has it): 10 per 15 minutes,
 * then 429 until the window ends, from any number of addresses. Passkey and identity-provider sign-in
 * stay open meanwhile.
 */
export const ACCOUNT_LOGIN_LIMIT = { points: 10, windowMs: 15 * 60 * 1000 };

/** The rate-limit key of an email's failed sign-ins (a digest: the table holds no addresses). */
function accountLoginKey(email: string): string {
  return `login-account:${sha256Hex(normalizeEmail(email))}`;
}

let dummyHash: Promise<string> | undefined;

/** A hash of the same cost to compare against when there is no account: unknown emails cost the same time. */
function timingDummy(): Promise<string> {
  dummyHash ??= bcrypt.hash("no-account-has-this-password", BCRYPT_COST);
  return dummyHash;
}

/** Counts a login attempt against the per-IP window (5 per 15 minutes): 429 beyond. */
export async function countLoginAttempt(ctx: WebContext, ip: string): Promise<void> {
  const limit = await consumeAddressRate(ctx, "login", ip, LOGIN_LIMIT);
  if (!limit.allowed) {
    throw rateLimited("login attempts", limit.retryAfterSeconds);
  }
}

/**
 * Checks email and password (401 on any mismatch, same cost either way) and starts a session. The
 * attempt counts against the email's window of failed sign-ins first (429 past ACCOUNT_LOGIN_LIMIT, before
 * any password is compared) and is taken back when it succeeds.
 */
export async function loginWithPassword(ctx: WebContext, input: LoginInput, meta: RequestMeta) {
  const accountKey = accountLoginKey(input.email);
  const limit = await consumeRate(ctx, accountKey, ACCOUNT_LOGIN_LIMIT);
  if (!limit.allowed) throw rateLimited("failed sign-ins for this account", limit.retryAfterSeconds);
  const user = await findUserByEmail(ctx, input.email);
  const hash = user?.passwordHash ?? (await timingDummy());
  const matches = await bcrypt.compare(input.password, hash);
  if (!user?.passwordHash || !matches) throw invalidCredentials();
  await refundRate(ctx, accountKey);
  const session = await createSession(ctx, user.id, { ip: meta.ip, userAgent: meta.userAgent ?? undefined });
  return { user: { id: user.id, name: user.name }, session };
}
