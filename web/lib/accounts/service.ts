import { newId, randomToken, sha256Hex } from "@svc/common";
import { emailVerificationTokens, referralCredits, users } from "@svc/db/schema";
import bcrypt from "bcryptjs";
import { and, eq, gt, isNull, sql } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { sendMail } from "../infra/mail/service";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeAddressRate, consumeRate } from "../infra/ratelimit/service";
import { signInFirst } from "../sessions/errors";
import { isAdminUser } from "../sessions/service";
import { isAutomatedClient } from "./bots";
import { botDetected, emailAlreadyVerified, invalidReferralCode, userExists } from "./errors";
import type { RegisterInput } from "./inputs";
import { pendingEmailChange } from "./tokens";
import { createUser, findUserByEmail, findUserByReferralCode } from "./users";

export const BCRYPT_COST = 12;
export const TRIAL_DAYS = 7;
export const SIGNUP_LIMIT = { points: 5, windowMs: 60 * 60 * 1000 };
export const VERIFICATION_TTL_MS = 24 * 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface RequestMeta {
  ip: string;
  userAgent: string | null;
}

/**
 * `POST /api/register`: bot check (403), validation (400, done by the caller's schema), per-IP limit of 5
 * sign-ups an hour (429), unique email (409), referral code (400 when unknown). Creates the account with a
 * 7-day trial, records referral credits for both users, and mails an email-verification link. No session.
 */
export async function registerAccount(ctx: WebContext, input: RegisterInput, meta: RequestMeta) {
  const referralCode = input.referralCode;
  const limit = await consumeAddressRate(ctx, "signup", meta.ip, SIGNUP_LIMIT);
  if (!limit.allowed) {
    throw rateLimited("sign-ups from this address", limit.retryAfterSeconds);
  }
  if (await findUserByEmail(ctx, input.email)) throw userExists();
  const referrer = referralCode ? await findUserByReferralCode(ctx, referralCode) : undefined;
  if (referralCode && !referrer) throw invalidReferralCode();

  const passwordHash = await bcrypt.hash(input.password, BCRYPT_COST);
  const token = randomToken(32);
  const now = ctx.clock.now();
  let user: Awaited<ReturnType<typeof createUser>>;
  try {
    user = await ctx.db.transaction(async (tx) => {
      const created = await createUser(
        { db: tx, clock: ctx.clock },
        { email: input.email, name: input.name, passwordHash, referredBy: referrer?.id },
      );
      if (referrer) {
        const amount = String(ctx.config.REFERRAL_CREDITS);
        await tx.insert(referralCredits).values([
          {
            id: newId("rcr"),
            userId: created.id,
            amount,
            reason: "referral_signup",
            relatedUserId: referrer.id,
            createdAt: now,
          },
          {
            id: newId("rcr"),
            userId: referrer.id,
            amount,
            reason: "referral_reward",
            relatedUserId: created.id,
            createdAt: now,
          },
        ]);
      }
      await storeVerificationToken(tx, created.id, token, now);
      return created;
    });
  } catch (err) {
    // Two sign-ups racing for one email: the unique index decides.
    if (
      (err as { cause?: { code?: string }; code?: string }).cause?.code === "23505" ||
      (err as { code?: string }).code === "23505"
    ) {
      throw userExists();
    }
    throw err;
  }
  await mailVerificationLink(ctx, user, token).catch((err: unknown) =>
    ctx.logger.error({ err, userId: user.id }, "verification mail failed"),
  );
  return { id: user.id, email: user.email, name: user.name };
}

type Tx = Pick<WebContext["db"], "insert">;

/** Stores a verification token (its SHA-256 only), good for 24 hours. */
async function storeVerificationToken(db: Tx, userId: string, token: string, now: Date): Promise<void> {
  await db.insert(emailVerificationTokens).values({
    tokenHash: sha256Hex(token),
    userId,
    expiresAt: new Date(now.getTime() + VERIFICATION_TTL_MS),
    createdAt: now,
  });
}

/** Mails the verification link of `token` to the account's address. */
async function mailVerificationLink(
  ctx: WebContext,
  user: { email: string; name: string },
  token: string,
): Promise<void> {
  const link = `${ctx.config.PUBLIC_URL.replace(/\/$/, "")}/api/auth/verify-email?token=${token}`;
  await sendMail(ctx, {
    to: user.email,
    subject: "Confirm your email for Agent Platform",
    text: `Hello ${user.name},\n\nConfirm that this address is yours by opening this link within 24 hours:\n\n${link}\n\nIf you did not sign up, ignore this message.\n`,
  });
}

/** New verification links one account may ask for. */
export const VERIFICATION_RESEND_LIMIT = { points: 3, windowMs: 60 * 60 * 1000 };

/**
 * `POST /api/auth/verify-email` (session): mails the signed-in account a fresh verification link; the links
 * mailed before stop working. 409 when the email is already confirmed; 429 past 3 an hour.
 */
export async function resendVerification(
  ctx: WebContext,
  userId: string,
): Promise<{ sent: true; email: string }> {
  const [user] = await ctx.db.select().from(users).where(eq(users.id, userId)).limit(1);
  if (!user) throw signInFirst();
  if (user.emailVerifiedAt) throw emailAlreadyVerified();
  const limit = await consumeRate(ctx, `verify-email-resend:${userId}`, VERIFICATION_RESEND_LIMIT);
  if (!limit.allowed) throw rateLimited("confirmation mails", limit.retryAfterSeconds);
  const token = randomToken(32);
  const now = ctx.clock.now();
  await ctx.db.transaction(async (tx) => {
    await tx
      .update(emailVerificationTokens)
      .set({ usedAt: now })
      .where(and(eq(emailVerificationTokens.userId, userId), isNull(emailVerificationTokens.usedAt)));
    await storeVerificationToken(tx, userId, token, now);
  });
  await mailVerificationLink(ctx, user, token);
  return { sent: true, email: user.email };
}

/** Refuses automation clients at sign-up unless BOT_PROTECTION=off. */
export function assertHumanClient(ctx: WebContext, userAgent: string | null): void {
  if (ctx.config.BOT_PROTECTION === "on" && isAutomatedClient(userAgent)) {
    throw botDetected();
  }
}

/**
 * `GET /api/auth/verify-email?token=`: single use, 24 hours. Marks the email verified (which is what makes
 * an ADMIN_EMAILS address an admin). Returns the account whose address the token proved, or null.
 */
export async function verifyEmail(ctx: WebContext, token: string | null): Promise<string | null> {
  if (!token || token.length > 200) return null;
  const now = ctx.clock.now();
  return ctx.db.transaction(async (tx) => {
    const used = await tx
      .update(emailVerificationTokens)
      .set({ usedAt: now })
      .where(
        and(
          eq(emailVerificationTokens.tokenHash, sha256Hex(token)),
          isNull(emailVerificationTokens.usedAt),
          gt(emailVerificationTokens.expiresAt, now),
        ),
      )
      .returning({ userId: emailVerificationTokens.userId });
    const userId = used[0]?.userId;
    if (!userId) return null;
    await tx
      .update(users)
      .set({ emailVerifiedAt: now })
      .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)));
    return userId;
  });
}

export interface TrialStatus {
  active: boolean;
  startedAt: string;
  endsAt: string;
  daysRemaining: number;
}

/** `GET /api/trial`: the 7-day free trial of the signed-in user. */
export async function trialStatus(ctx: WebContext, userId: string): Promise<TrialStatus> {
  const rows = await ctx.db
    .select({ trialStartedAt: users.trialStartedAt, createdAt: users.createdAt })
    .from(users)
    .where(eq(users.id, userId))
    .limit(1);
  const row = rows[0];
  if (!row) throw signInFirst();
  const startedAt = row.trialStartedAt ?? row.createdAt;
  const endsAt = new Date(startedAt.getTime() + TRIAL_DAYS * DAY_MS);
  const left = endsAt.getTime() - ctx.clock.now().getTime();
  return {
    active: left > 0,
    startedAt: startedAt.toISOString(),
    endsAt: endsAt.toISOString(),
    daysRemaining: Math.max(0, Math.ceil(left / DAY_MS)),
  };
}

export interface AccountSummary {
  id: string;
  email: string;
  name: string;
  isAdmin: boolean;
  emailVerified: boolean;
  referralCode: string;
  referralCredits: string;
  /** Whether the account signs in with a password (else passkeys or the identity provider only). */
  hasPassword: boolean;
  /** An email change waiting for its link to be opened at the new address, or null. */
  pendingEmail: { email: string; expiresAt: string } | null;
}

/** `GET /api/account`: who is signed in, whether the email is proven, the referral code and credits earned. */
export async function accountSummary(ctx: WebContext, userId: string): Promise<AccountSummary> {
  const rows = await ctx.db.select().from(users).where(eq(users.id, userId)).limit(1);
  const user = rows[0];
  if (!user) throw signInFirst();
  const credits = await ctx.db
    .select({ total: sql<string>`coalesce(sum(${referralCredits.amount}), 0)::text` })
    .from(referralCredits)
    .where(eq(referralCredits.userId, userId));
  const pending = await pendingEmailChange(ctx.db, userId, ctx.clock.now());
  return {
    id: user.id,
    email: user.email,
    name: user.name,
    isAdmin: isAdminUser(user, ctx.config),
    emailVerified: user.emailVerifiedAt !== null,
    referralCode: user.referralCode,
    referralCredits: credits[0]?.total ?? "0",
    hasPassword: user.passwordHash !== null,
    pendingEmail: pending && { email: pending.email, expiresAt: pending.expiresAt.toISOString() },
  };
}
