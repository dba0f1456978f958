/**
 * The watchdog's rows: `watchdog_states` (one per agent) and the mirror of its state on `agents.status`. Every
 * event is applied to the freshly locked row in a transaction, so an operator reset written by another
 * process between a probe and its write is never overwritten by a stale copy. The mirror is written only when
 * the state changes and only over a status the watchdog manages (`running`, `degraded`, `crash_loop`,
 * `crashed`; never over `stopped`, `provisioning` and the like, the owner's): healthy → `running`, degraded and
 * repairing → `degraded`, crash_loop → `crash_loop`. `last_repair_at` starts the startup grace.
 */
import { type Clock, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import { agents, watchdogStates } from "@svc/db/schema";
import { and, eq, inArray, isNotNull, ne, notInArray } from "drizzle-orm";
import {
  initialSnapshot,
  nextWatchdogState,
  WATCHDOG_STATES,
  type WatchdogEvent,
  type WatchdogRules,
  type WatchdogSnapshot,
  type WatchdogStateName,
  type WatchdogTransition,
} from "./state";

/** Agent statuses that are not watched: not deployed yet, or given up on. */
export const UNWATCHED_AGENT_STATUSES = ["pending", "provisioning", "failed", "deleting", "deleted"];

/** Agent statuses the watchdog may overwrite with its mirror. */
export const WATCHDOG_MANAGED_AGENT_STATUSES = ["running", "degraded", "crash_loop", "crashed"];

const MIRRORED_STATUS: Record<WatchdogStateName, string | null> = {
  healthy: "running",
  degraded: "degraded",
  repairing: "degraded",
  crash_loop: "crash_loop",
  stopped: null,
};

/** What the watchdog reads of an agent. */
export interface WatchedAgent {
  id: string;
  name: string;
  url: string | null;
  status: string;
  runtimeServiceId: string | null;
  gatewayTokenEncrypted: string | null;
}

export async function listWatchableAgentIds(db: Database): Promise<string[]> {
  const rows = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(isNotNull(agents.url), notInArray(agents.status, UNWATCHED_AGENT_STATUSES)));
  return rows.map((r) => r.id);
}

export async function loadWatchedAgent(db: Database, agentId: string): Promise<WatchedAgent | null> {
  const [row] = await db
    .select({
      id: agents.id,
      name: agents.name,
      url: agents.url,
      status: agents.status,
      runtimeServiceId: agents.runtimeServiceId,
      gatewayTokenEncrypted: agents.gatewayTokenEncrypted,
    })
    .from(agents)
    .where(eq(agents.id, agentId));
  return row ?? null;
}

type WatchdogRow = typeof watchdogStates.$inferSelect;

function toSnapshot(row: WatchdogRow): WatchdogSnapshot {
  const state = (WATCHDOG_STATES as readonly string[]).includes(row.state)
    ? (row.state as WatchdogStateName)
    : "healthy";
  return {
    state,
    crashTimes: [...row.crashTimes].map((t) => new Date(t)).sort((a, b) => a.getTime() - b.getTime()),
    lastStatus: row.lastStatus,
    lastProbeAt: row.lastProbeAt,
    restartedAt: row.lastRepairAt,
  };
}

export async function loadWatchdogSnapshot(db: Database, agentId: string): Promise<WatchdogSnapshot | null> {
  const [row] = await db.select().from(watchdogStates).where(eq(watchdogStates.agentId, agentId));
  return row ? toSnapshot(row) : null;
}

/**
 * Applies `event` to the agent's row (created when missing) and mirrors a state change on `agents.status`.
 * Returns null when the agent no longer exists.
 */
export async function applyWatchdogEvent(
  db: Database,
  agentId: string,
  event: WatchdogEvent,
  rules: WatchdogRules,
  ownerId: string | null,
): Promise<{ previous: WatchdogSnapshot; transition: WatchdogTransition } | null> {
  return db.transaction(async (tx) => {
    const [agent] = await tx
      .select({ id: agents.id })
      .from(agents)
      .where(eq(agents.id, agentId))
      .for("share");
    if (!agent) return null;
    await tx.insert(watchdogStates).values({ agentId }).onConflictDoNothing();
    const [row] = await tx
      .select()
      .from(watchdogStates)
      .where(eq(watchdogStates.agentId, agentId))
      .for("update");
    const previous = row ? toSnapshot(row) : initialSnapshot();
    const transition = nextWatchdogState(previous, event, rules);
    const next = transition.snapshot;
    await tx
      .update(watchdogStates)
      .set({
        state: next.state,
        crashTimes: next.crashTimes,
        lastStatus: next.lastStatus,
        lastProbeAt: next.lastProbeAt,
        lastRepairAt: next.restartedAt,
        ...(ownerId ? { ownerId } : {}),
        // The event's time comes from the watcher's injected clock.
        updatedAt: event.at,
      })
      .where(eq(watchdogStates.agentId, agentId));
    const mirrored = MIRRORED_STATUS[next.state];
    if (next.state !== previous.state && mirrored) {
      await tx
        .update(agents)
        .set({ status: mirrored, updatedAt: event.at })
        .where(
          and(
            eq(agents.id, agentId),
            inArray(agents.status, WATCHDOG_MANAGED_AGENT_STATUSES),
            ne(agents.status, mirrored),
          ),
        );
    }
    return { previous, transition };
  });
}

/** Rules that events without a probe (operator and owner actions) never consult. */
const NEUTRAL_RULES: WatchdogRules = {
  crashWindowMs: 0,
  crashThreshold: Number.POSITIVE_INFINITY,
  startupGraceMs: 0,
  autoRepair: false,
};

/**
 * Call after an operator (owner or admin) restarted, started, deployed or updated the agent: the watchdog
 * goes back to `healthy` with an empty crash window and a fresh startup grace, and a `crash_loop` or
 * `degraded` mirror on `agents.status` becomes `running`. It is the only way out of `crash_loop`. Works from
 * any backend process (the watching process reads the row before each probe).
 */
export async function resetAfterOperatorAction(
  db: Database,
  agentId: string,
  clock: Clock = systemClock,
): Promise<WatchdogSnapshot | null> {
  const applied = await applyWatchdogEvent(
    db,
    agentId,
    { type: "operator_reset", at: clock.now() },
    NEUTRAL_RULES,
    null,
  );
  return applied?.transition.snapshot ?? null;
}

/** Records which process watches the agent (informational; the advisory lock is what counts). */
export async function claimWatchdogRow(
  db: Database,
  agentId: string,
  ownerId: string,
  clock: Clock = systemClock,
): Promise<void> {
  await db
    .insert(watchdogStates)
    .values({ agentId, ownerId })
    .onConflictDoUpdate({ target: watchdogStates.agentId, set: { ownerId, updatedAt: clock.now() } })
    .catch(() => undefined); // the agent was deleted meanwhile: the manager drops it on its next refresh
}
