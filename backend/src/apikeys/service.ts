import { type Clock, safeEqual, sha256Hex } from "@svc/common";
import type { Database } from "@svc/db";
import { apiKeys } from "@svc/db/schema";
import { and, eq, isNull } from "drizzle-orm";

/** The shape of every key the web issues (`svc_` + 40 base62); anything else is rejected without a lookup. */
const API_KEY_SHAPE = /^svc_[0-9A-Za-z]{40}$/;

export type KeyValidation = { valid: true; userId: string } | { valid: false };

/**
 * Whether a raw API key is active: found by its SHA-256 among non-revoked keys, the stored hash compared
 * again in constant time; a valid key gets `last_used_at` recorded.
 */
export async function validateApiKey(
  deps: { db: Database; clock: Clock },
  rawKey: string,
): Promise<KeyValidation> {
  if (!API_KEY_SHAPE.test(rawKey)) return { valid: false };
  const hash = sha256Hex(rawKey);
  const rows = await deps.db
    .select({ id: apiKeys.id, userId: apiKeys.userId, keyHash: apiKeys.keyHash })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = rows[0];
  if (!row || !safeEqual(row.keyHash, hash)) return { valid: false };
  await deps.db
    .update(apiKeys)
    .set({ lastUsedAt: deps.clock.now() })
    .where(and(eq(apiKeys.id, row.id), isNull(apiKeys.revokedAt)));
  return { valid: true, userId: row.userId };
}
