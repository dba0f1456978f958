/**
 * The lookups of the credentials the web issues and both the web and the backend accept: API keys (stored
 * as SHA-256, `last_used_at` recorded on use, refused once expired) and session tokens (the `svc-session` cookie, stored as
 * SHA-256). One copy, used by the web's dual auth, the backend's `POST /api/validate-key` and hook auth, and
 * the backend's permission socket. Not in the package index: it needs the database (`@svc/db`).
 */
import type { Database } from "@svc/db";
import { apiKeys, sessions, type User, users } from "@svc/db/schema";
import { and, eq, gt, isNull, or } from "drizzle-orm";
import type { Clock } from "./clock";
import { safeEqual, sha256Hex } from "./crypto";

/** The shape of every key the web issues (`svc_` + 40 base62); anything else is rejected without a lookup. */
const API_KEY_SHAPE = /^svc_[0-9A-Za-z]{40}$/;

/** Whether a string has the shape of an issued key (cheap check before any database work). */
export function isApiKeyShaped(raw: string): boolean {
  return API_KEY_SHAPE.test(raw);
}

/** The owner of an active API key presented as a bearer credential, and what the key may reach. */
export interface ApiKeyOwner {
  apiKeyId: string;
  /** The key's scopes (./api-scopes.ts). */
  scopes: string[];
  /** When the key stops working; null: never. */
  expiresAt: Date | null;
  user: User;
}

/** A presented key: active (with its owner), expired (when), or null: no such key, or revoked. */
export type ApiKeyLookup =
  | { status: "active"; owner: ApiKeyOwner }
  | { status: "expired"; apiKeyId: string; expiresAt: Date }
  | null;

/**
 * A raw key looked up by its SHA-256 among non-revoked keys (the stored hash compared again in constant
 * time): active, expired at `clock.now()`, or null. Only an active key gets `last_used_at` recorded.
 */
export async function lookUpApiKey(
  deps: { db: Database; clock: Clock },
  rawKey: string,
): Promise<ApiKeyLookup> {
  if (!isApiKeyShaped(rawKey)) return null;
  const hash = sha256Hex(rawKey);
  const rows = await deps.db
    .select({
      id: apiKeys.id,
      keyHash: apiKeys.keyHash,
      scopes: apiKeys.scopes,
      expiresAt: apiKeys.expiresAt,
      user: users,
    })
    .from(apiKeys)
    .innerJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row || !safeEqual(row.keyHash, hash)) return null;
  const now = deps.clock.now();
  if (row.expiresAt && row.expiresAt.getTime() <= now.getTime()) {
    return { status: "expired", apiKeyId: row.id, expiresAt: row.expiresAt };
  }
  await deps.db
    .update(apiKeys)
    .set({ lastUsedAt: now })
    .where(and(eq(apiKeys.id, row.id), isNull(apiKeys.revokedAt)));
  return {
    status: "active",
    owner: { apiKeyId: row.id, scopes: row.scopes, expiresAt: row.expiresAt, user: row.user },
  };
}

/** The owner of an active raw key (not revoked, not expired), or null; see lookUpApiKey. */
export async function findApiKeyOwner(
  deps: { db: Database; clock: Clock },
  rawKey: string,
): Promise<ApiKeyOwner | null> {
  const found = await lookUpApiKey(deps, rawKey);
  return found?.status === "active" ? found.owner : null;
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

/**
 * Whether the credential a permission ticket was issued to still works at `now`: session `id` of `userId`
 * exists and has not expired, or — an API key's id (`key_…`, a ticket issued to a key) — the key of
 * `userId` is neither revoked nor expired.
 */
export async function isSessionLive(db: Database, id: string, userId: string, now: Date): Promise<boolean> {
  if (id.startsWith("key_")) {
    const keys = await db
      .select({ id: apiKeys.id })
      .from(apiKeys)
      .where(
        and(
          eq(apiKeys.id, id),
          eq(apiKeys.userId, userId),
          isNull(apiKeys.revokedAt),
          or(isNull(apiKeys.expiresAt), gt(apiKeys.expiresAt, now)),
        ),
      )
      .limit(1);
    return keys.length > 0;
  }
  const rows = await db
    .select({ id: sessions.id })
    .from(sessions)
    .where(and(eq(sessions.id, id), eq(sessions.userId, userId), gt(sessions.expiresAt, now)))
    .limit(1);
  return rows.length > 0;
}
