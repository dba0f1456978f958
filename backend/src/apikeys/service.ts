import type { Clock } from "@svc/common";
import { findApiKeyOwner } from "@svc/common/credentials";
import type { Database } from "@svc/db";

export type KeyValidation = { valid: true; userId: string } | { valid: false };

/**
 * Whether a raw API key is active (the one lookup in @svc/common/credentials: by its SHA-256 among
 * non-revoked keys, compared again in constant time); a valid key gets `last_used_at` recorded.
 */
export async function validateApiKey(
  deps: { db: Database; clock: Clock },
  rawKey: string,
): Promise<KeyValidation> {
  const owner = await findApiKeyOwner(deps, rawKey);
  return owner ? { valid: true, userId: owner.user.id } : { valid: false };
}
