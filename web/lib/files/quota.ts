import type { Clock } from "@svc/common";
import type { Database } from "@svc/db";
import { files, fileUploadReservations, users } from "@svc/db/schema";
import { and, eq, gt, lte, ne, sql } from "drizzle-orm";
import { signInFirst } from "../sessions/errors";
import { type FilesPlanConfig, quotaBytesOfPlan } from "./config";
import { storageLimitExceeded } from "./errors";

/** How long a reservation holds quota for an upload that never ends (its process died). */
export const RESERVATION_TTL_MS = 60 * 60 * 1000;

type Tx = Parameters<Parameters<Database["transaction"]>[0]>[0];
type QuotaConfig = { FILE_QUOTA_MB: number; FILE_MAX_BYTES: number } & FilesPlanConfig;

export interface Reservation {
  /** The upload's (and the future file's) id. */
  id: string;
  /** Bytes the upload may store: it is cut off past them. */
  bytes: number;
  /** Whether `bytes` is what the quota left (rather than FILE_MAX_BYTES or the request's length). */
  limitedByQuota: boolean;
  quotaBytes: number;
  /** What the user's files and other uploads hold, this one excluded. */
  usedBytes: number;
}

/**
 * Locks the user's row (serializing the quota decisions of one user) and answers the quota of the user's
 * plan and the bytes held: stored files plus live reservations other than `exceptId`.
 */
async function lockQuota(tx: Tx, userId: string, now: Date, exceptId?: string) {
  const [owner] = await tx
    .select({ plan: users.plan })
    .from(users)
    .where(eq(users.id, userId))
    .for("no key update");
  if (!owner) throw signInFirst();
  const [{ stored }] = await tx
    .select({ stored: sql<string>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(eq(files.userId, userId));
  const [{ reserved }] = await tx
    .select({ reserved: sql<string>`coalesce(sum(${fileUploadReservations.bytes}), 0)` })
    .from(fileUploadReservations)
    .where(
      and(
        eq(fileUploadReservations.userId, userId),
        gt(fileUploadReservations.expiresAt, now),
        exceptId ? ne(fileUploadReservations.id, exceptId) : undefined,
      ),
    );
  return { plan: owner.plan, usedBytes: Number(stored) + Number(reserved) };
}

/**
 * Reserves quota for an upload before its first byte is stored, in one transaction with the user's row
 * locked, so concurrent uploads of one user cannot together pass the quota: the upload may store
 * `min(FILE_MAX_BYTES, declaredBytes, quota left)` bytes. 413 when nothing is left.
 */
export async function reserveUploadQuota(
  deps: { db: Database; clock: Clock; config: QuotaConfig },
  userId: string,
  id: string,
  declaredBytes: number | undefined,
): Promise<Reservation> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    const { plan, usedBytes } = await lockQuota(tx, userId, now);
    await tx
      .delete(fileUploadReservations)
      .where(and(eq(fileUploadReservations.userId, userId), lte(fileUploadReservations.expiresAt, now)));
    const quotaBytes = quotaBytesOfPlan(deps.config, plan);
    const left = quotaBytes - usedBytes;
    if (left <= 0) throw storageLimitExceeded(quotaBytes, usedBytes);
    const wanted = Math.min(deps.config.FILE_MAX_BYTES, declaredBytes ?? Number.POSITIVE_INFINITY);
    const bytes = Math.min(wanted, left);
    await tx.insert(fileUploadReservations).values({
      id,
      userId,
      bytes,
      createdAt: now,
      expiresAt: new Date(now.getTime() + RESERVATION_TTL_MS),
    });
    return { id, bytes, limitedByQuota: left < wanted, quotaBytes, usedBytes };
  });
}

/**
 * Inside the transaction that records an uploaded file: locks the user's row again and checks that the
 * file still fits beside everything else held (it does unless the reservation outlived its TTL), then
 * drops the reservation. 413 when it does not fit.
 */
export async function settleReservation(
  tx: Tx,
  userId: string,
  id: string,
  size: number,
  now: Date,
  config: QuotaConfig,
) {
  const { plan, usedBytes } = await lockQuota(tx, userId, now, id);
  const quotaBytes = quotaBytesOfPlan(config, plan);
  if (usedBytes + size > quotaBytes) throw storageLimitExceeded(quotaBytes, usedBytes);
  await tx.delete(fileUploadReservations).where(eq(fileUploadReservations.id, id));
}

/** Frees an upload's reservation (a no-op once settled). */
export async function releaseReservation(deps: { db: Database }, id: string): Promise<void> {
  await deps.db.delete(fileUploadReservations).where(eq(fileUploadReservations.id, id));
}

/** The user's quota and what their stored files use (dashboard). */
export async function fileQuotaOf(
  deps: { db: Database; config: QuotaConfig },
  userId: string,
): Promise<{ plan: string; quotaBytes: number; usedBytes: number }> {
  const [row] = await deps.db
    .select({
      plan: users.plan,
      used: sql<string>`(select coalesce(sum(${files.size}), 0) from ${files} where ${files.userId} = ${userId})`,
    })
    .from(users)
    .where(eq(users.id, userId));
  if (!row) throw signInFirst();
  return { plan: row.plan, quotaBytes: quotaBytesOfPlan(deps.config, row.plan), usedBytes: Number(row.used) };
}
