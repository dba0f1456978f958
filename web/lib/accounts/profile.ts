import { accountTokens, users } from "@svc/db/schema";
import { and, eq, ne } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { rateLimited } from "../infra/ratelimit/errors";
import { consumeRate } from "../infra/ratelimit/service";
import { emailTaken, sameEmail } from "./errors";
import type { ChangeEmailInput, ChangeNameInput } from "./inputs";
import { mailEmailChanged, mailEmailChangeLink, mailQuietly } from "./mails";
import { checkAccountPassword, loadAccount } from "./password";
import { type AccountSummary, accountSummary } from "./service";
import { consumeAccountToken, issueAccountToken } from "./tokens";
import { findUserByEmail, normalizeEmail } from "./users";

/** Name changes per account. */
export const NAME_CHANGE_LIMIT = { points: 10, windowMs: 15 * 60 * 1000 };
/** Email change links mailed per account. */
export const EMAIL_CHANGE_LIMIT = { points: 3, windowMs: 60 * 60 * 1000 };
/** The link to the new address works once, for 24 hours. */
export const EMAIL_CHANGE_TTL_MS = 24 * 60 * 60 * 1000;

/** `PATCH /api/account`: the account's name (1 to 100 characters); answers the account as GET does. */
export async function changeName(
  ctx: WebContext,
  userId: string,
  input: ChangeNameInput,
): Promise<AccountSummary> {
  const limit = await consumeRate(ctx, `name-change:${userId}`, NAME_CHANGE_LIMIT);
  if (!limit.allowed) throw rateLimited("name changes", limit.retryAfterSeconds);
  await ctx.db
    .update(users)
    .set({ name: input.name, updatedAt: ctx.clock.now() })
    .where(eq(users.id, userId));
  return accountSummary(ctx, userId);
}

/**
 * `POST /api/account/email`: mails a confirmation link to the new address; the account keeps its address
 * until the link is opened. Needs the password when the account has one (a stolen session must not be able
 * to move the account to another mailbox and reset the password there). 400 for the same address, 409
 * when another account has it, 429 past EMAIL_CHANGE_LIMIT.
 */
export async function requestEmailChange(
  ctx: WebContext,
  userId: string,
  input: ChangeEmailInput,
): Promise<{ sent: true; email: string; expiresAt: string }> {
  const user = await loadAccount(ctx, userId);
  const email = normalizeEmail(input.email);
  if (user.passwordHash) await checkAccountPassword(ctx, user, input.password ?? "", "password");
  if (email === user.email) throw sameEmail();
  // Counted before the lookup: the answer tells whether another account has the address.
  const limit = await consumeRate(ctx, `email-change:${userId}`, EMAIL_CHANGE_LIMIT);
  if (!limit.allowed) throw rateLimited("email change requests", limit.retryAfterSeconds);
  if (await findUserByEmail(ctx, email)) throw emailTaken();
  const now = ctx.clock.now();
  const token = await ctx.db.transaction((tx) =>
    issueAccountToken(tx, {
      userId,
      purpose: "email_change",
      ttlMs: EMAIL_CHANGE_TTL_MS,
      now,
      newEmail: email,
    }),
  );
  await mailEmailChangeLink(ctx, { newEmail: email, name: user.name }, token);
  return { sent: true, email, expiresAt: new Date(now.getTime() + EMAIL_CHANGE_TTL_MS).toISOString() };
}

export type EmailChangeOutcome = { changed: true; userId: string } | { changed: false; reason: string };

/**
 * `GET /api/account/email/confirm?token=`: the link mailed to the new address. Single use, 24 hours. The
 * account takes the address (confirmed, as the link proves it) unless another account took it meanwhile;
 * the old address is told.
 */
export async function confirmEmailChange(ctx: WebContext, token: string | null): Promise<EmailChangeOutcome> {
  const now = ctx.clock.now();
  let previous: { email: string; name: string } | undefined;
  let newEmail = "";
  try {
    const outcome = await ctx.db.transaction(async (tx): Promise<EmailChangeOutcome> => {
      const spent = await consumeAccountToken(tx, token, "email_change", now);
      if (!spent?.newEmail) return { changed: false, reason: "EmailChangeFailed" };
      newEmail = spent.newEmail;
      const [user] = await tx.select().from(users).where(eq(users.id, spent.userId)).for("update");
      const [taken] = await tx
        .select({ id: users.id })
        .from(users)
        .where(and(eq(users.email, newEmail), ne(users.id, user.id)))
        .limit(1);
      if (taken) return { changed: false, reason: "EmailTaken" };
      previous = { email: user.email, name: user.name };
      await tx
        .update(users)
        .set({ email: newEmail, emailVerifiedAt: now, updatedAt: now })
        .where(eq(users.id, user.id));
      // Any other pending change of this account is moot now.
      await tx
        .update(accountTokens)
        .set({ usedAt: now })
        .where(and(eq(accountTokens.userId, user.id), eq(accountTokens.purpose, "email_change")));
      return { changed: true, userId: user.id };
    });
    if (outcome.changed && previous) {
      const old = previous;
      await mailQuietly(ctx, "email change notice", () =>
        mailEmailChanged(ctx, { oldEmail: old.email, name: old.name }, newEmail),
      );
    }
    return outcome;
  } catch (err) {
    // Two accounts confirming one address at once: the unique index decides.
    if ((err as { cause?: { code?: string } }).cause?.code === "23505")
      return { changed: false, reason: "EmailTaken" };
    throw err;
  }
}
