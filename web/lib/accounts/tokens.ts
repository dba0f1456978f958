import { newId, randomToken, safeEqual, sha256Hex } from "@svc/common";
import type { Database } from "@svc/db";
import { type AccountToken, accountTokens } from "@svc/db/schema";
import { and, eq, isNull } from "drizzle-orm";

export type AccountTokenPurpose = AccountToken["purpose"];

type Tx = Pick<Database, "insert" | "update" | "select">;

/** Longest token a link may carry: the id (`atk_` + 20) and the secret (43), with room to spare. */
const MAX_TOKEN_LENGTH = 200;

/**
 * Stores a new single-use token of `purpose` for the account and returns it: `<id>.<secret>`, of which only
 * the secret's SHA-256 is kept. The account's earlier unused tokens of the same purpose stop working, so
 * only the newest link mailed works.
 */
export async function issueAccountToken(
  db: Tx,
  input: { userId: string; purpose: AccountTokenPurpose; ttlMs: number; now: Date; newEmail?: string },
): Promise<string> {
  const id = newId("atk");
  const secret = randomToken(32);
  await db
    .update(accountTokens)
    .set({ usedAt: input.now })
    .where(
      and(
        eq(accountTokens.userId, input.userId),
        eq(accountTokens.purpose, input.purpose),
        isNull(accountTokens.usedAt),
      ),
    );
  await db.insert(accountTokens).values({
    id,
    userId: input.userId,
    purpose: input.purpose,
    secretHash: sha256Hex(secret),
    newEmail: input.newEmail ?? null,
    expiresAt: new Date(input.now.getTime() + input.ttlMs),
    createdAt: input.now,
  });
  return `${id}.${secret}`;
}

/**
 * Spends a token of `purpose`: the row found by its id, unused and unexpired, whose stored hash equals the
 * secret's (compared in constant time). The row is marked used in the same statement that checks it is
 * unused, so two requests with one link cannot both succeed. Undefined when any of it fails.
 */
export async function consumeAccountToken(
  db: Tx,
  token: string | null | undefined,
  purpose: AccountTokenPurpose,
  now: Date,
): Promise<AccountToken | undefined> {
  if (!token || token.length > MAX_TOKEN_LENGTH) return undefined;
  const dot = token.indexOf(".");
  if (dot <= 0) return undefined;
  const id = token.slice(0, dot);
  const secret = token.slice(dot + 1);
  const [row] = await db
    .select()
    .from(accountTokens)
    .where(and(eq(accountTokens.id, id), eq(accountTokens.purpose, purpose)))
    .limit(1);
  if (!row || !safeEqual(row.secretHash, sha256Hex(secret))) return undefined;
  if (row.usedAt !== null || row.expiresAt.getTime() <= now.getTime()) return undefined;
  const [spent] = await db
    .update(accountTokens)
    .set({ usedAt: now })
    .where(and(eq(accountTokens.id, row.id), isNull(accountTokens.usedAt)))
    .returning();
  return spent;
}

/** The account's newest pending email change (its address and when the link expires), or null. */
export async function pendingEmailChange(
  db: Pick<Database, "select">,
  userId: string,
  now: Date,
): Promise<{ email: string; expiresAt: Date } | null> {
  const rows = await db
    .select({ email: accountTokens.newEmail, expiresAt: accountTokens.expiresAt })
    .from(accountTokens)
    .where(
      and(
        eq(accountTokens.userId, userId),
        eq(accountTokens.purpose, "email_change"),
        isNull(accountTokens.usedAt),
      ),
    );
  const live = rows.find((r) => r.email !== null && r.expiresAt.getTime() > now.getTime());
  return live?.email ? { email: live.email, expiresAt: live.expiresAt } : null;
}
