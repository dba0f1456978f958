import { newId } from "@svc/common";
import type { Database } from "@svc/db";
import { type Buddy, buddies, users } from "@svc/db/schema";
import { type AnyColumn, and, asc, count, eq, gte, type SQL, sql } from "drizzle-orm";
import type { WebContext } from "../infra/context";
import { buddyLimitReached, buddyNotFound, tooTiredToTrain } from "./errors";
import {
  BUDDY_LIMIT,
  type BuddyAction,
  type BuddyView,
  type CreateBuddyInput,
  TRAIN_ENERGY_MIN,
} from "./inputs";

type Deps = Pick<WebContext, "db" | "clock">;

/** XP per level: `level = floor(xp / 100) + 1`. */
export const XP_PER_LEVEL = 100;

function buddyView(row: Buddy): BuddyView {
  return {
    id: row.id,
    userId: row.userId,
    name: row.name,
    type: row.type,
    level: row.level,
    xp: row.xp,
    energy: row.energy,
    happiness: row.happiness,
    lastFed: row.lastFed.toISOString(),
    lastPlayed: row.lastPlayed.toISOString(),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** `GET /api/buddies`: the caller's buddies, oldest first. */
export async function listBuddies(deps: Deps, userId: string): Promise<BuddyView[]> {
  const rows = await deps.db
    .select()
    .from(buddies)
    .where(eq(buddies.userId, userId))
    .orderBy(asc(buddies.createdAt), asc(buddies.id));
  return rows.map(buddyView);
}

/**
 * `POST /api/buddies`: energy and happiness 50, level 1, xp 0. The count and the insert run in one
 * transaction holding the owner's row lock, so racing creates cannot pass the limit of 20 together.
 */
export async function createBuddy(deps: Deps, userId: string, input: CreateBuddyInput): Promise<BuddyView> {
  const now = deps.clock.now();
  return deps.db.transaction(async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for("update");
    const [{ owned }] = await tx.select({ owned: count() }).from(buddies).where(eq(buddies.userId, userId));
    if (owned >= BUDDY_LIMIT) throw buddyLimitReached();
    const [row] = await tx
      .insert(buddies)
      .values({
        id: newId("bud"),
        userId,
        name: input.name,
        type: input.type,
        lastFed: now,
        lastPlayed: now,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return buddyView(row);
  });
}

/** The columns an action sets, as SQL over the row's current values, and the XP it adds. */
function effectOf(action: BuddyAction, now: Date): { set: Record<string, SQL | Date | string>; xp: number } {
  const capped = (column: AnyColumn, add: number) => sql`least(${column} + ${add}, 100)`;
  switch (action.action) {
    case "feed":
      return {
        set: { energy: capped(buddies.energy, 20), happiness: capped(buddies.happiness, 10), lastFed: now },
        xp: 10,
      };
    case "play":
      return { set: { happiness: capped(buddies.happiness, 15), lastPlayed: now }, xp: 25 };
    case "train":
      return {
        set: {
          energy: sql`${buddies.energy} - ${TRAIN_ENERGY_MIN}`,
          happiness: sql`greatest(${buddies.happiness} - 10, 0)`,
        },
        xp: 50,
      };
    case "rename":
      return { set: { name: action.newName }, xp: 0 };
  }
}

/**
 * `PATCH /api/buddies/{buddyId}`: each action is one `UPDATE` computed from the row's current values (no
 * read-modify-write), so concurrent actions all count. Returns the buddy and whether its level rose
 * (`undefined` for rename, which answers `{buddy}` only).
 */
export async function actOnBuddy(
  deps: Deps,
  userId: string,
  buddyId: string,
  action: BuddyAction,
): Promise<{ buddy: BuddyView; leveledUp?: boolean }> {
  const now = deps.clock.now();
  const { set, xp } = effectOf(action, now);
  const owned = and(eq(buddies.id, buddyId), eq(buddies.userId, userId));
  const where = action.action === "train" ? and(owned, gte(buddies.energy, TRAIN_ENERGY_MIN)) : owned;
  const [row] = await deps.db
    .update(buddies)
    .set({
      ...set,
      ...(xp > 0
        ? { xp: sql`${buddies.xp} + ${xp}`, level: sql`floor((${buddies.xp} + ${xp}) / ${XP_PER_LEVEL}) + 1` }
        : {}),
      updatedAt: now,
    })
    .where(where)
    .returning();
  if (!row) {
    if (action.action === "train" && (await buddyExists(deps.db, userId, buddyId))) throw tooTiredToTrain();
    throw buddyNotFound();
  }
  if (action.action === "rename") return { buddy: buddyView(row) };
  // The level before is the one of the XP before this action, which the update added atomically.
  const levelBefore = Math.floor((row.xp - xp) / XP_PER_LEVEL) + 1;
  return { buddy: buddyView(row), leveledUp: row.level > levelBefore };
}

async function buddyExists(db: Database, userId: string, buddyId: string): Promise<boolean> {
  const rows = await db
    .select({ id: buddies.id })
    .from(buddies)
    .where(and(eq(buddies.id, buddyId), eq(buddies.userId, userId)));
  return rows.length > 0;
}

/** `DELETE /api/buddies/{buddyId}`: the caller's buddy (404 otherwise). */
export async function deleteBuddy(deps: Deps, userId: string, buddyId: string): Promise<void> {
  const rows = await deps.db
    .delete(buddies)
    .where(and(eq(buddies.id, buddyId), eq(buddies.userId, userId)))
    .returning({ id: buddies.id });
  if (rows.length === 0) throw buddyNotFound();
}
