import { randomBytes } from "node:crypto";
import { newId, sha256Hex } from "@svc/common";
import { type ApiKey, apiKeys, users } from "@svc/db/schema";
import { and, count, desc, eq, isNull } from "drizzle-orm";
import type { z } from "zod";
import type { WebContext } from "../infra/context";
import { signInFirst } from "../sessions/errors";
import { apiKeyLimit, apiKeyNotFound } from "./errors";
import type { createApiKeyBody } from "./inputs";

/** A create request as the body schema leaves it (scopes normalized). */
export type CreateApiKeyInput = z.output<typeof createApiKeyBody>;

/** Most active (non-revoked) keys per account. */
export const API_KEY_LIMIT = 10;
/** Every raw key starts with this. */
export const API_KEY_PREFIX = "svc_";
/** How many leading characters of the raw key are stored as its lookup prefix. */
export const API_KEY_PREFIX_LENGTH = 10;
const RANDOM_LENGTH = 40;
const DAY_MS = 24 * 60 * 60 * 1000;
const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

type Deps = Pick<WebContext, "db" | "clock">;

/** What list and get return: never the raw key or its hash. */
export interface ApiKeySummary {
  id: string;
  name: string;
  prefix: string;
  /** What the key reaches (@svc/common/api-scopes). */
  scopes: string[];
  createdAt: string;
  /** When the key stops working; null: never. */
  expiresAt: string | null;
  /** Whether it has (by the server's clock), so the page need not trust the browser's. */
  expired: boolean;
  lastUsedAt: string | null;
}

/** What create returns: the raw key, this once. */
export interface CreatedApiKey {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  createdAt: string;
  expiresAt: string | null;
  key: string;
}

/**
 * A new raw key: `svc_` + 40 base62 characters drawn uniformly from crypto random bytes (bytes of 248 and
 * above are dropped, since 248 = 4 x 62, so there is no modulo bias).
 */
export function generateApiKey(): string {
  let out = "";
  while (out.length < RANDOM_LENGTH) {
    for (const byte of randomBytes(RANDOM_LENGTH + 8)) {
      if (byte < 248 && out.length < RANDOM_LENGTH) out += BASE62[byte % 62];
    }
  }
  return API_KEY_PREFIX + out;
}

type SummaryRow = Pick<
  ApiKey,
  "id" | "name" | "prefix" | "scopes" | "createdAt" | "expiresAt" | "lastUsedAt"
>;

function summary(row: SummaryRow, now: Date): ApiKeySummary {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes,
    createdAt: row.createdAt.toISOString(),
    expiresAt: row.expiresAt ? row.expiresAt.toISOString() : null,
    expired: row.expiresAt !== null && row.expiresAt.getTime() <= now.getTime(),
    lastUsedAt: row.lastUsedAt ? row.lastUsedAt.toISOString() : null,
  };
}

const summaryColumns = {
  id: apiKeys.id,
  name: apiKeys.name,
  prefix: apiKeys.prefix,
  scopes: apiKeys.scopes,
  createdAt: apiKeys.createdAt,
  expiresAt: apiKeys.expiresAt,
  lastUsedAt: apiKeys.lastUsedAt,
};

/** The user's keys that were not deleted (expired ones too, marked), newest first. */
export async function listApiKeys(deps: Deps, userId: string): Promise<ApiKeySummary[]> {
  const rows = await deps.db
    .select(summaryColumns)
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .orderBy(desc(apiKeys.createdAt), desc(apiKeys.id));
  const now = deps.clock.now();
  return rows.map((row) => summary(row, now));
}

/**
 * Creates a key for the user with its scopes and, for `expiresInDays`, an expiry that many days from now:
 * 429 when the user already has 10 keys that were not deleted. The user row is locked for the count and the
 * insert, so two concurrent creates cannot both pass the limit.
 */
export async function createApiKey(
  deps: Deps,
  userId: string,
  input: CreateApiKeyInput,
): Promise<CreatedApiKey> {
  return deps.db.transaction(async (tx) => {
    const owner = await tx
      .select({ id: users.id })
      .from(users)
      .where(eq(users.id, userId))
      .for("no key update");
    if (!owner[0]) throw signInFirst();
    const [active] = await tx
      .select({ n: count() })
      .from(apiKeys)
      .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
    if ((active?.n ?? 0) >= API_KEY_LIMIT) {
      throw apiKeyLimit(API_KEY_LIMIT);
    }
    const key = generateApiKey();
    const now = deps.clock.now();
    const [row] = await tx
      .insert(apiKeys)
      .values({
        id: newId("key"),
        userId,
        name: input.name,
        prefix: key.slice(0, API_KEY_PREFIX_LENGTH),
        keyHash: sha256Hex(key),
        scopes: input.scopes,
        expiresAt: input.expiresInDays ? new Date(now.getTime() + input.expiresInDays * DAY_MS) : null,
        createdAt: now,
      })
      .returning(summaryColumns);
    const { id, name, prefix, scopes, createdAt, expiresAt } = summary(row, now);
    return { id, name, prefix, scopes, createdAt, expiresAt, key };
  });
}

/** One key of the user that was not deleted; 404 for an unknown, revoked or another user's key. */
export async function getApiKey(deps: Deps, userId: string, id: string): Promise<ApiKeySummary> {
  const rows = await deps.db
    .select(summaryColumns)
    .from(apiKeys)
    .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .limit(1);
  if (!rows[0]) throw apiKeyNotFound();
  return summary(rows[0], deps.clock.now());
}

/** Revokes one active key of the user (sets `revoked_at`); 404 as for `getApiKey`. */
export async function revokeApiKey(deps: Deps, userId: string, id: string): Promise<void> {
  const rows = await deps.db
    .update(apiKeys)
    .set({ revokedAt: deps.clock.now() })
    .where(and(eq(apiKeys.id, id), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  if (!rows[0]) throw apiKeyNotFound();
}
