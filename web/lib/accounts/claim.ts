import type { Database } from "@svc/db";
import {
  apiKeys,
  emailVerificationTokens,
  idpAccounts,
  passkeyChallenges,
  passkeys,
  sessions,
  users,
} from "@svc/db/schema";
import { eq } from "drizzle-orm";

type Tx = Pick<Database, "update" | "delete">;

/**
 * A verified identity claims an account whose email was never proven: whoever set the account up may not
 * own the address (an attacker can register someone else's email), so every way back in that they could
 * have added goes — password, sessions, passkeys and their open challenges, API keys, identity-provider
 * links, pending verification tokens — and the email counts as proven from now. Run it in the claiming
 * transaction, before the new identity link is written.
 */
export async function claimUnprovenAccount(db: Tx, userId: string, now: Date): Promise<void> {
  await db
    .update(users)
    .set({ passwordHash: null, emailVerifiedAt: now, updatedAt: now })
    .where(eq(users.id, userId));
  await db.delete(sessions).where(eq(sessions.userId, userId));
  await db.delete(passkeys).where(eq(passkeys.userId, userId));
  await db.delete(passkeyChallenges).where(eq(passkeyChallenges.userId, userId));
  await db.delete(apiKeys).where(eq(apiKeys.userId, userId));
  await db.delete(idpAccounts).where(eq(idpAccounts.userId, userId));
  await db.delete(emailVerificationTokens).where(eq(emailVerificationTokens.userId, userId));
}
