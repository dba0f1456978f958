/**
 * The lookups of the credentials the web issues and both the web and the backend accept: API keys (stored
 * as SHA-256, `last_used_at` recorded on use) and session tokens (the `svc-session` cookie, stored as
 * SHA-256). One copy, used by the web's dual auth, the backend's `POST /api/validate-key` and hook auth, and
 * the backend's permission socket. Not in the package index: it needs the database (`@svc/db`).
 */
import type { Database } from "@svc/db";
import { apiKeys, sessions, type User, users } from "@svc/db/schema";
import { and, eq, gt, isNull } from "drizzle-orm";
import type { Clock } from "./clock";
import { safeEqual, sha256Hex } from "./crypto";

/** The shape of every key the web issues (`svc_` + 40 base62); anything else is rejected without a lookup. */
const API_KEY_SHAPE = /^svc_[0-9A-Za-z]{40}$/;

/** Whether a string has the shape of an issued key (cheap check before any database work). */
export function isApiKeyShaped(raw: string): boolean {
  return API_KEY_SHAPE.test(raw);
}

/** The owner of an API key presented as a bearer credential. */
export interface ApiKeyOwner {
  apiKeyId: string;
  user: { id: string; email: string; name: string };
}

/**
 * The owner of an active raw key, found by the SHA-256 of the key among non-revoked keys, or null. The
 * stored hash is compared again in constant time after the lookup; a match records `last_used_at`.
 */
export async function findApiKeyOwner(
  deps: { db: Database; clock: Clock },
  rawKey: string,
): Promise<ApiKeyOwner | null> {
  if (!isApiKeyShaped(rawKey)) return null;
  const hash = sha256Hex(rawKey);
  const rows = await deps.db
    .select({
      id: apiKeys.id,
      keyHash: apiKeys.keyHash,
      user: { id: users.id, email: users.email, name: users.name },
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row || !safeEqual(row.keyHash, hash)) return null;
  await deps.db
    .update(apiKeys)
    .set({ lastUsedAt: deps.clock.now() })
    .where(and(eq(apiKeys.id, row.id), isNull(apiKeys.revokedAt)));
  return { apiKeyId: row.id, user: row.user };
}

/** The account of a live session token (unknown, deleted or expired at `now`: null). */
export async function findSessionAccount(db: Database, token: string, now: Date): Promise<User | null> {
  return (await findSession(db, token, now))?.user ?? null;
}

/** A live session token's session id and account (unknown, deleted or expired at `now`: null). */
export async function findSession(
  db: Database,
  token: string,
  now: Date,
): Promise<{ sessionId: string; user: User } | null> {
  const rows = await db
    .select({ sessionId: sessions.id, user: users })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, sha256Hex(token)), gt(sessions.expiresAt, now)))
    .limit(1);
  return rows[0] ?? null;
}

/** Whether session `sessionId` of `userId` still exists and has not expired at `now`. */
export async function isSessionLive(
  db: Database,
  sessionId: string,
  userId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.id, sessionId), eq(sessions.userId, userId), gt(sessions.expiresAt, now)))
    .limit(1);
  return rows.length > 0;
}
