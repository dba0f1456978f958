/**
 * The watchdog's metrics: agents by watchdog state (read from the database at each scrape, so every process
 * reports all agents whoever watches them), and the repairs and crash loops this process's watchers saw.
 */
import { counter, gauge } from "@svc/common/metrics/index";
import type { Database } from "@svc/db";
import { watchdogStates } from "@svc/db/schema";
import { count } from "drizzle-orm";
import { WATCHDOG_STATES, type WatchdogNotificationEvent } from "./state";

function agentsGauge() {
  return gauge<"state">({
    name: "watchdog_agents",
    help: "Watched agents by watchdog state (healthy, degraded, repairing, crash_loop, stopped)",
    labelNames: ["state"],
  });
}

function repairsCounter() {
  return counter<"outcome">({
    name: "watchdog_repairs_total",
    help: "Auto-repairs by outcome: started, succeeded, failed",
    labelNames: ["outcome"],
  });
}

function crashLoopsCounter() {
  return counter({
    name: "watchdog_crash_loops_total",
    help: "Agents that entered crash_loop",
  });
}

/** Reads the agents' watchdog states into the gauge (every state present, 0 when none is in it). */
export async function refreshWatchdogGauges(db: Database): Promise<void> {
  const rows = await db
    .select({ state: watchdogStates.state, agents: count() })
    .from(watchdogStates)
    .groupBy(watchdogStates.state);
  const agents = agentsGauge();
  for (const state of WATCHDOG_STATES) agents.set({ state }, 0);
  for (const row of rows) agents.set({ state: row.state }, row.agents);
}

/** Counts what one applied transition announced (the notifications are exactly its repairs and crash loops). */
export function countWatchdogNotifications(events: readonly WatchdogNotificationEvent[]): void {
  for (const event of events) {
    if (event === "repair_started") repairsCounter().inc({ outcome: "started" });
    else if (event === "repair_succeeded") repairsCounter().inc({ outcome: "succeeded" });
    else if (event === "repair_failed") repairsCounter().inc({ outcome: "failed" });
    else if (event === "crash_loop") crashLoopsCounter().inc();
  }
}
