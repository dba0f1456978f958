/**
 * The watchdog's state machine, pure: one agent's state and an event in; the next state, the notifications and
 * whether to start the auto-repair out. States: healthy, degraded, repairing, crash_loop, stopped. `unhealthy`,
 * `unreachable`, `stopped` and `crashed` observations are failures (an agent its owner did not stop should be
 * running); `starting` is neither failure nor up (the gateway is on its way). A crash is up → not up, a new
 * `crashed` report, or a failed repair; `crashThreshold` crashes within `crashWindowMs` enter crash_loop, which
 * only an operator action leaves. A first failure only degrades (probed every 5 s), so a gateway the wrapper
 * restarts by itself gets one interval before a repair; a repair cut short by its process dying resumes as
 * degraded. For `startupGraceMs` after a restart, failures neither count as crashes nor degrade.
 */
import { isUp, type ProbeStatus } from "../runtime/probe";

export const WATCHDOG_STATES = ["healthy", "degraded", "repairing", "crash_loop", "stopped"] as const;
export type WatchdogStateName = (typeof WATCHDOG_STATES)[number];

/** What one probe saw: its status, or `crashed` when the wrapper reports a crashed gateway. */
export type Observation = ProbeStatus | "crashed";

export type WatchdogNotificationEvent =
  | "degraded"
  | "crash_loop"
  | "repair_started"
  | "repair_succeeded"
  | "repair_failed";

export interface WatchdogSnapshot {
  state: WatchdogStateName;
  /** Crash times, oldest first (those older than the window are dropped on the next event). */
  crashTimes: Date[];
  /** The last observation (`null` before the first probe and after an operator action). */
  lastStatus: string | null;
  lastProbeAt: Date | null;
  /** The last restart by a repair or an operator: the startup grace runs from here. */
  restartedAt: Date | null;
}

export interface WatchdogRules {
  crashWindowMs: number;
  crashThreshold: number;
  startupGraceMs: number;
  autoRepair: boolean;
}

export type WatchdogEvent =
  | { type: "probe"; at: Date; observation: Observation }
  | { type: "repair_started"; at: Date }
  /** The repair's restart was issued: the startup grace starts. */
  | { type: "repair_restarted"; at: Date }
  | { type: "repair_succeeded"; at: Date; observation: Observation }
  | { type: "repair_failed"; at: Date; observation: Observation | null; reason: string }
  /** A repair whose process died before it finished (found by the next owner). */
  | { type: "repair_interrupted"; at: Date }
  | { type: "owner_stopped"; at: Date }
  | { type: "owner_started"; at: Date }
  | { type: "operator_reset"; at: Date };

export interface WatchdogTransition {
  snapshot: WatchdogSnapshot;
  notify: WatchdogNotificationEvent[];
  /** Start the auto-repair sequence now. */
  repair: boolean;
  /** A crash was counted by this event. */
  crashCounted: boolean;
}

export const initialSnapshot = (): WatchdogSnapshot => ({
  state: "healthy",
  crashTimes: [],
  lastStatus: null,
  lastProbeAt: null,
  restartedAt: null,
});

const FAILURES = new Set<string>(["unhealthy", "unreachable", "stopped", "crashed"]);

export function isFailure(observation: string | null): boolean {
  return observation !== null && FAILURES.has(observation);
}

export function isUpObservation(observation: string | null): boolean {
  return observation !== null && observation !== "crashed" && isUp(observation as ProbeStatus);
}

/** Whether going from `previous` to `current` is a crash. */
export function isCrash(previous: string | null, current: Observation): boolean {
  if (isUpObservation(previous) && !isUpObservation(current)) return true;
  return current === "crashed" && previous !== "crashed";
}

export function inStartupGrace(snapshot: WatchdogSnapshot, at: Date, rules: WatchdogRules): boolean {
  return (
    snapshot.restartedAt !== null && at.getTime() < snapshot.restartedAt.getTime() + rules.startupGraceMs
  );
}

function windowed(crashTimes: Date[], at: Date, rules: WatchdogRules): Date[] {
  const from = at.getTime() - rules.crashWindowMs;
  return crashTimes.filter((t) => t.getTime() > from);
}

export function nextWatchdogState(
  snapshot: WatchdogSnapshot,
  event: WatchdogEvent,
  rules: WatchdogRules,
): WatchdogTransition {
  const same = (next: WatchdogSnapshot = snapshot): WatchdogTransition => ({
    snapshot: next,
    notify: [],
    repair: false,
    crashCounted: false,
  });
  const at = event.at;

  switch (event.type) {
    case "probe": {
      const observed: WatchdogSnapshot = { ...snapshot, lastStatus: event.observation, lastProbeAt: at };
      if (snapshot.state !== "healthy" && snapshot.state !== "degraded") return same(observed);
      const crashTimes = windowed(snapshot.crashTimes, at, rules);
      const up = isUpObservation(event.observation);
      if (inStartupGrace(snapshot, at, rules)) {
        return same({ ...observed, crashTimes, state: up ? "healthy" : snapshot.state });
      }
      const crashed = isCrash(snapshot.lastStatus, event.observation);
      if (crashed) crashTimes.push(at);
      const next: WatchdogSnapshot = { ...observed, crashTimes };
      if (crashTimes.length >= rules.crashThreshold) {
        return {
          snapshot: { ...next, state: "crash_loop" },
          notify: ["crash_loop"],
          repair: false,
          crashCounted: true,
        };
      }
      if (isFailure(event.observation)) {
        if (snapshot.state === "healthy") {
          return {
            snapshot: { ...next, state: "degraded" },
            notify: ["degraded"],
            repair: false,
            crashCounted: crashed,
          };
        }
        return { snapshot: next, notify: [], repair: rules.autoRepair, crashCounted: crashed };
      }
      return {
        snapshot: { ...next, state: up ? "healthy" : snapshot.state },
        notify: [],
        repair: false,
        crashCounted: crashed,
      };
    }
    case "repair_started":
      if (snapshot.state !== "degraded") return same();
      return {
        snapshot: { ...snapshot, state: "repairing" },
        notify: ["repair_started"],
        repair: false,
        crashCounted: false,
      };
    case "repair_restarted":
      if (snapshot.state !== "repairing") return same();
      return same({ ...snapshot, restartedAt: at });
    case "repair_succeeded":
      if (snapshot.state !== "repairing") return same();
      return {
        snapshot: {
          ...snapshot,
          state: "healthy",
          lastStatus: event.observation,
          lastProbeAt: at,
          crashTimes: windowed(snapshot.crashTimes, at, rules),
        },
        notify: ["repair_succeeded"],
        repair: false,
        crashCounted: false,
      };
    case "repair_failed": {
      if (snapshot.state !== "repairing") return same();
      const crashTimes = [...windowed(snapshot.crashTimes, at, rules), at];
      const loop = crashTimes.length >= rules.crashThreshold;
      return {
        snapshot: {
          ...snapshot,
          state: loop ? "crash_loop" : "degraded",
          crashTimes,
          ...(event.observation ? { lastStatus: event.observation, lastProbeAt: at } : {}),
        },
        notify: loop ? ["repair_failed", "crash_loop"] : ["repair_failed"],
        repair: false,
        crashCounted: true,
      };
    }
    case "repair_interrupted":
      if (snapshot.state !== "repairing") return same();
      return same({ ...snapshot, state: "degraded" });
    case "owner_stopped":
      if (snapshot.state === "stopped") return same();
      return same({ ...snapshot, state: "stopped" });
    case "owner_started":
      if (snapshot.state !== "stopped") return same();
      return same({ ...snapshot, state: "healthy", crashTimes: [], lastStatus: null, restartedAt: at });
    case "operator_reset":
      return same({ ...snapshot, state: "healthy", crashTimes: [], lastStatus: null, restartedAt: at });
  }
}
