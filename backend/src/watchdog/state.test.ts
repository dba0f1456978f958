/** The watchdog state machine, transition by transition (pure; times from a ManualClock). */
import { ManualClock } from "@svc/common";
import { describe, expect, it } from "vitest";
import {
  initialSnapshot,
  isCrash,
  nextWatchdogState,
  type Observation,
  WATCHDOG_STATES,
  type WatchdogEvent,
  type WatchdogRules,
  type WatchdogSnapshot,
  type WatchdogStateName,
} from "./state";

const RULES: WatchdogRules = {
  crashWindowMs: 5 * 60_000,
  crashThreshold: 3,
  startupGraceMs: 30_000,
  autoRepair: true,
};
const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const MIN = 60_000;

const snap = (over: Partial<WatchdogSnapshot> = {}): WatchdogSnapshot => ({ ...initialSnapshot(), ...over });
const probe = (observation: Observation, ms = 0): WatchdogEvent => ({
  type: "probe",
  at: at(ms),
  observation,
});

const FAILURES: Observation[] = ["unhealthy", "unreachable", "stopped", "crashed"];
const UPS: Observation[] = ["running", "healthy", "setup"];

describe("probe in healthy", () => {
  it.each(FAILURES)("%s moves to degraded and notifies degraded, without starting a repair", (obs) => {
    const t = nextWatchdogState(snap({ lastStatus: "starting" }), probe(obs, 5), RULES);
    expect(t.snapshot).toMatchObject({ state: "degraded", lastStatus: obs, lastProbeAt: at(5) });
    expect(t.notify).toEqual(["degraded"]);
    expect(t.repair).toBe(false);
  });

  it.each(UPS)("%s stays healthy, silently", (obs) => {
    const t = nextWatchdogState(snap({ lastStatus: "running" }), probe(obs), RULES);
    expect(t).toMatchObject({ snapshot: { state: "healthy", lastStatus: obs }, notify: [], repair: false });
    expect(t.crashCounted).toBe(false);
  });

  it("starting after starting is neither a failure nor a crash", () => {
    const t = nextWatchdogState(snap({ lastStatus: "starting" }), probe("starting"), RULES);
    expect(t).toMatchObject({
      snapshot: { state: "healthy", crashTimes: [] },
      notify: [],
      crashCounted: false,
    });
  });

  it("up → not up counts a crash (starting too: the process went away and is coming back)", () => {
    const t = nextWatchdogState(snap({ lastStatus: "running" }), probe("starting", 7), RULES);
    expect(t.crashCounted).toBe(true);
    expect(t.snapshot).toMatchObject({ state: "healthy", crashTimes: [at(7)] });
    const down = nextWatchdogState(snap({ lastStatus: "healthy" }), probe("unreachable", 7), RULES);
    expect(down).toMatchObject({ crashCounted: true, snapshot: { state: "degraded", crashTimes: [at(7)] } });
  });

  it("the first probe of a new row counts no crash", () => {
    const t = nextWatchdogState(initialSnapshot(), probe("unreachable"), RULES);
    expect(t).toMatchObject({ crashCounted: false, snapshot: { state: "degraded", crashTimes: [] } });
  });
});

describe("probe in degraded", () => {
  it.each(FAILURES)("%s again starts the repair (state stays degraded until repair_started)", (obs) => {
    const t = nextWatchdogState(snap({ state: "degraded", lastStatus: obs }), probe(obs), RULES);
    expect(t).toMatchObject({
      snapshot: { state: "degraded" },
      notify: [],
      repair: true,
      crashCounted: false,
    });
  });

  it("with auto-repair off a failing probe keeps it degraded and starts nothing", () => {
    const t = nextWatchdogState(
      snap({ state: "degraded", lastStatus: "unreachable" }),
      probe("unreachable"),
      { ...RULES, autoRepair: false },
    );
    expect(t).toMatchObject({ snapshot: { state: "degraded" }, notify: [], repair: false });
  });

  it.each(UPS)("%s recovers to healthy", (obs) => {
    const t = nextWatchdogState(snap({ state: "degraded", lastStatus: "unreachable" }), probe(obs), RULES);
    expect(t).toMatchObject({ snapshot: { state: "healthy", lastStatus: obs }, notify: [], repair: false });
  });

  it("starting stays degraded without repairing (the gateway is on its way up)", () => {
    const t = nextWatchdogState(
      snap({ state: "degraded", lastStatus: "unreachable" }),
      probe("starting"),
      RULES,
    );
    expect(t).toMatchObject({ snapshot: { state: "degraded" }, repair: false });
  });
});

describe("crash counting and crash_loop", () => {
  it("isCrash: up to not-up, and a crashed report after anything but crashed", () => {
    expect(isCrash("running", "unreachable")).toBe(true);
    expect(isCrash("setup", "stopped")).toBe(true);
    expect(isCrash("unreachable", "unreachable")).toBe(false);
    expect(isCrash("starting", "crashed")).toBe(true);
    expect(isCrash("crashed", "crashed")).toBe(false);
    expect(isCrash(null, "crashed")).toBe(true);
    expect(isCrash(null, "unreachable")).toBe(false);
    expect(isCrash("running", "healthy")).toBe(false);
  });

  it("the third crash within the window enters crash_loop and notifies it", () => {
    const s = snap({ state: "degraded", lastStatus: "running", crashTimes: [at(0), at(2 * MIN)] });
    const t = nextWatchdogState(s, probe("crashed", 4 * MIN), RULES);
    expect(t).toMatchObject({ notify: ["crash_loop"], repair: false, crashCounted: true });
    expect(t.snapshot.state).toBe("crash_loop");
    expect(t.snapshot.crashTimes).toEqual([at(0), at(2 * MIN), at(4 * MIN)]);
  });

  it("a crash from healthy can reach the threshold too", () => {
    const s = snap({ lastStatus: "healthy", crashTimes: [at(0), at(MIN)] });
    const t = nextWatchdogState(s, probe("unreachable", 2 * MIN), RULES);
    expect(t.snapshot.state).toBe("crash_loop");
    expect(t.notify).toEqual(["crash_loop"]);
  });

  it("crashes older than the window drop out: three spread over more than 5 minutes are not a loop", () => {
    const s = snap({ state: "degraded", lastStatus: "running", crashTimes: [at(0), at(3 * MIN)] });
    const t = nextWatchdogState(s, probe("crashed", 5 * MIN + 1), RULES);
    expect(t.snapshot.state).toBe("degraded");
    expect(t.snapshot.crashTimes).toEqual([at(3 * MIN), at(5 * MIN + 1)]);
    // Exactly 5 minutes after the first is outside the window as well.
    const edge = nextWatchdogState(s, probe("crashed", 5 * MIN), RULES);
    expect(edge.snapshot.state).toBe("degraded");
  });

  it("the threshold is configurable", () => {
    const t = nextWatchdogState(snap({ lastStatus: "running" }), probe("crashed"), {
      ...RULES,
      crashThreshold: 1,
    });
    expect(t.snapshot.state).toBe("crash_loop");
  });
});

describe("startup grace", () => {
  const grace = snap({ state: "healthy", lastStatus: null, restartedAt: at(0) });

  it.each(FAILURES)("%s within 30 s of a restart neither degrades nor counts a crash", (obs) => {
    const t = nextWatchdogState({ ...grace, lastStatus: "running" }, probe(obs, 29_999), RULES);
    expect(t).toMatchObject({
      snapshot: { state: "healthy", lastStatus: obs },
      notify: [],
      crashCounted: false,
    });
    expect(t.snapshot.crashTimes).toEqual([]);
  });

  it("a degraded agent in grace is not repaired, and becomes healthy when it is up", () => {
    const degraded = { ...grace, state: "degraded" as const, lastStatus: "unreachable" };
    expect(nextWatchdogState(degraded, probe("unreachable", 10_000), RULES)).toMatchObject({
      snapshot: { state: "degraded" },
      repair: false,
    });
    expect(nextWatchdogState(degraded, probe("running", 10_000), RULES).snapshot.state).toBe("healthy");
  });

  it("at 30 s the grace is over", () => {
    const t = nextWatchdogState({ ...grace, lastStatus: "running" }, probe("unreachable", 30_000), RULES);
    expect(t).toMatchObject({ snapshot: { state: "degraded" }, notify: ["degraded"], crashCounted: true });
  });
});

describe("repair events", () => {
  const degraded = snap({ state: "degraded", lastStatus: "unreachable" });
  const repairing = snap({ state: "repairing", lastStatus: "unreachable", crashTimes: [at(0)] });

  it("repair_started: degraded → repairing, notifies repair_started", () => {
    const t = nextWatchdogState(degraded, { type: "repair_started", at: at(0) }, RULES);
    expect(t).toMatchObject({ snapshot: { state: "repairing" }, notify: ["repair_started"] });
  });

  it("repair_restarted starts the grace", () => {
    const t = nextWatchdogState(repairing, { type: "repair_restarted", at: at(5_000) }, RULES);
    expect(t.snapshot).toMatchObject({ state: "repairing", restartedAt: at(5_000) });
    expect(t.notify).toEqual([]);
  });

  it("repair_succeeded: repairing → healthy, notifies, keeps the crash window", () => {
    const t = nextWatchdogState(
      repairing,
      { type: "repair_succeeded", at: at(35_000), observation: "running" },
      RULES,
    );
    expect(t).toMatchObject({
      snapshot: { state: "healthy", lastStatus: "running", lastProbeAt: at(35_000), crashTimes: [at(0)] },
      notify: ["repair_succeeded"],
    });
  });

  it("repair_failed: counts a crash and goes back to degraded", () => {
    const t = nextWatchdogState(
      repairing,
      { type: "repair_failed", at: at(35_000), observation: "unreachable", reason: "still unreachable" },
      RULES,
    );
    expect(t).toMatchObject({
      snapshot: { state: "degraded", crashTimes: [at(0), at(35_000)] },
      notify: ["repair_failed"],
      crashCounted: true,
    });
  });

  it("repair_failed at the threshold enters crash_loop", () => {
    const t = nextWatchdogState(
      { ...repairing, crashTimes: [at(0), at(40_000)] },
      { type: "repair_failed", at: at(80_000), observation: null, reason: "restart failed" },
      RULES,
    );
    expect(t).toMatchObject({ snapshot: { state: "crash_loop" }, notify: ["repair_failed", "crash_loop"] });
    expect(t.snapshot.lastStatus).toBe("unreachable");
  });

  it("repair_interrupted: repairing → degraded, silently", () => {
    const t = nextWatchdogState(repairing, { type: "repair_interrupted", at: at(1) }, RULES);
    expect(t).toMatchObject({ snapshot: { state: "degraded" }, notify: [] });
  });

  it("repair events outside repairing (an operator reset came first) change nothing", () => {
    for (const state of ["healthy", "degraded", "crash_loop", "stopped"] as const) {
      const s = snap({ state });
      for (const event of [
        { type: "repair_restarted", at: at(1) },
        { type: "repair_succeeded", at: at(1), observation: "running" },
        { type: "repair_failed", at: at(1), observation: null, reason: "x" },
        { type: "repair_interrupted", at: at(1) },
      ] as WatchdogEvent[]) {
        expect(nextWatchdogState(s, event, RULES)).toEqual({
          snapshot: s,
          notify: [],
          repair: false,
          crashCounted: false,
        });
      }
    }
    const healthy = snap();
    expect(nextWatchdogState(healthy, { type: "repair_started", at: at(1) }, RULES).snapshot).toBe(healthy);
  });
});

describe("crash_loop, repairing and stopped ignore probes except to record them", () => {
  it.each(["crash_loop", "repairing", "stopped"] as const)("%s", (state) => {
    for (const obs of [...FAILURES, ...UPS, "starting" as const]) {
      const s = snap({ state, lastStatus: "running", crashTimes: [at(0)] });
      const t = nextWatchdogState(s, probe(obs, MIN), RULES);
      expect(t).toEqual({
        snapshot: { ...s, lastStatus: obs, lastProbeAt: at(MIN) },
        notify: [],
        repair: false,
        crashCounted: false,
      });
    }
  });

  it("crash_loop stays crash_loop even when the agent is up for a long time", () => {
    let s = snap({ state: "crash_loop", lastStatus: "crashed" });
    for (let i = 1; i <= 20; i++) s = nextWatchdogState(s, probe("running", i * 2 * MIN), RULES).snapshot;
    expect(s.state).toBe("crash_loop");
  });
});

describe("owner and operator actions", () => {
  it("owner_stopped: every state → stopped, silently, keeping the crash window", () => {
    for (const state of WATCHDOG_STATES) {
      const t = nextWatchdogState(
        snap({ state, crashTimes: [at(0)] }),
        { type: "owner_stopped", at: at(1) },
        RULES,
      );
      expect(t).toMatchObject({
        snapshot: { state: "stopped", crashTimes: [at(0)] },
        notify: [],
        repair: false,
      });
    }
  });

  it("owner_started: stopped → healthy with a fresh window and grace; other states unchanged", () => {
    const t = nextWatchdogState(
      snap({ state: "stopped", crashTimes: [at(0)], lastStatus: "stopped" }),
      { type: "owner_started", at: at(MIN) },
      RULES,
    );
    expect(t.snapshot).toMatchObject({
      state: "healthy",
      crashTimes: [],
      lastStatus: null,
      restartedAt: at(MIN),
    });
    for (const state of ["healthy", "degraded", "repairing", "crash_loop"] as WatchdogStateName[]) {
      const s = snap({ state });
      expect(nextWatchdogState(s, { type: "owner_started", at: at(1) }, RULES).snapshot).toBe(s);
    }
  });

  it("operator_reset: every state → healthy, crash window emptied, grace from now", () => {
    const clock = new ManualClock(at(10 * MIN));
    for (const state of WATCHDOG_STATES) {
      const t = nextWatchdogState(
        snap({ state, crashTimes: [at(0), at(MIN)], lastStatus: "crashed" }),
        { type: "operator_reset", at: clock.now() },
        RULES,
      );
      expect(t).toMatchObject({
        snapshot: { state: "healthy", crashTimes: [], lastStatus: null, restartedAt: at(10 * MIN) },
        notify: [],
        repair: false,
      });
    }
  });
});
