import type { Database } from "@svc/db";
import {
  agents,
  apiKeys,
  emailVerificationTokens,
  idpAccounts,
  passkeyChallenges,
  passkeys,
  sessions,
  users,
} from "@svc/db/schema";
import { and, eq, isNotNull } from "drizzle-orm";

type Tx = Pick<Database, "update" | "delete">;

/**
 * A verified identity claims an account whose email was never proven: whoever registered it may not own the
 * address (anyone can register someone else's email), so every way back in they could have added goes and
 * the email counts as proven from now. The agents' gateway tokens are revoked too: the registrant could have
 * read one through the agent and kept calling the platform as it. Run it in the claiming transaction, before
 * the new identity link is written; answers the agents that need a new token (`healClaimedAgents`).
 */
export async function claimUnprovenAccount(db: Tx, userId: string, now: Date): Promise<string[]> {
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
  const revoked = await db
    .update(agents)
    .set({ gatewayTokenEncrypted: null, updatedAt: now })
    .where(and(eq(agents.userId, userId), isNotNull(agents.gatewayTokenEncrypted)))
    .returning({ id: agents.id });
  return revoked.map((agent) => agent.id);
}
