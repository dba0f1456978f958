import { type Clock, newId, randomId } from "@svc/common";
import type { Database } from "@svc/db";
import { type User, users } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";

type Tx = Pick<Database, "insert" | "select" | "update" | "execute">;

export interface NewAccount {
  email: string;
  name?: string;
  passwordHash?: string | null;
  emailVerifiedAt?: Date | null;
  referredBy?: string | null;
}

/** A fresh referral code: 8 upper-case letters and digits (matched case-insensitively). */
export function newReferralCode(): string {
  return randomId(8).toUpperCase();
}

/** Normalizes an email for storage and lookup: trimmed, lower-case. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

/**
 * Creates an account: id, lower-cased email, name (default: the email), own referral code, and the start
 * of the 7-day free trial. Retries the referral code on the (rare) collision.
 */
export async function createUser(deps: { db: Tx; clock: Clock }, account: NewAccount): Promise<User> {
  const email = normalizeEmail(account.email);
  const now = deps.clock.now();
  for (let attempt = 0; ; attempt++) {
    const inserted = await deps.db
      .insert(users)
      .values({
        id: newId("usr"),
        email,
        name: account.name?.trim() || email,
        passwordHash: account.passwordHash ?? null,
        emailVerifiedAt: account.emailVerifiedAt ?? null,
        referralCode: newReferralCode(),
        referredBy: account.referredBy ?? null,
        trialStartedAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (inserted[0]) return inserted[0];
    // Either the email exists (caller's job to check first) or the referral code collided.
    const taken = await deps.db.select({ id: users.id }).from(users).where(eq(users.email, email)).limit(1);
    if (taken[0] || attempt >= 5) throw new Error(`could not create the account for ${email}`);
  }
}

/** The account with this email (case-insensitive), or undefined. */
export async function findUserByEmail(deps: { db: Tx }, email: string): Promise<User | undefined> {
  const rows = await deps.db
    .select()
    .from(users)
    .where(eq(users.email, normalizeEmail(email)))
    .limit(1);
  return rows[0];
}

/** The account with this referral code (case-insensitive), or undefined. */
export async function findUserByReferralCode(deps: { db: Tx }, code: string): Promise<User | undefined> {
  const rows = await deps.db
    .select()
    .from(users)
    .where(sql`lower(${users.referralCode}) = ${code.toLowerCase()}`)
    .limit(1);
  return rows[0];
}
