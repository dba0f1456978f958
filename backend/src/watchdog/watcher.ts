/**
 * One agent's watchdog loop: probe on the state's interval (2 min; 5 s while degraded), apply what it saw
 * to the state machine, and run the auto-repair sequence when the state machine asks for it:
 * kill the gateway (the wrapper's `POST /api/gateway/stop` with its admin password, else the platform's
 * `stop`), wait 5 s, `restart` on the hosting platform, wait 30 s, verify with the probe.
 * Each step is one timer callback; before each step of a repair the agent and the state are read again,
 * so an owner stop or an operator reset in the meantime ends the sequence.
 */
import { type Clock, requestAgent } from "@svc/common";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import { agentServiceName, type HostingPlatform } from "../hosting/types";
import type { ProbeResult } from "../runtime/probe";
import type { TimerHandle, Timers } from "../timers";
import { countWatchdogNotifications } from "./metrics";
import type { WatchdogNotification } from "./notifier";
import {
  isUpObservation,
  type Observation,
  type WatchdogEvent,
  type WatchdogRules,
  type WatchdogStateName,
  type WatchdogTransition,
} from "./state";
import { applyWatchdogEvent, loadWatchdogSnapshot, loadWatchedAgent, type WatchedAgent } from "./store";

/** What the watchdog needs of the hosting platform. */
export type WatchdogPlatform = Pick<HostingPlatform, "find" | "stop" | "restart">;

export interface WatcherDeps {
  db: Database;
  rules: WatchdogRules;
  intervalMs: number;
  degradedIntervalMs: number;
  /** Repair: wait after killing the gateway (5 s) and after the restart (30 s). */
  repairStopWaitMs: number;
  repairVerifyWaitMs: number;
  /** Timeout of the wrapper's gateway stop call. */
  gatewayStopTimeoutMs: number;
  clock: Clock;
  timers: Timers;
  probe: (baseUrl: string) => Promise<ProbeResult>;
  platform: WatchdogPlatform;
  /** The agent's wrapper admin password (derived from its gateway token), or null when it cannot be had. */
  adminPassword: (agent: WatchedAgent) => string | null;
  notify: (notification: WatchdogNotification) => void;
  logger: Logger;
  ownerId: string;
}

export interface AgentWatcher {
  readonly agentId: string;
  /** Schedules the first probe after `delayMs`. */
  start(delayMs?: number): void;
  /** Cancels what is scheduled and waits for a step in progress. */
  stop(): Promise<void>;
}

/**
 * The observation of a probe: `crashed` when the wrapper reports a crashed gateway; `starting` when it
 * reports a gateway on its way up (the wrapper sends `running: false` then, which the probe classifies
 * `stopped`); otherwise the probe's status.
 */
export function observe(result: ProbeResult): Observation {
  const state = result.runtime?.state;
  if (state === "crashed") return "crashed";
  if (state === "starting" && result.status === "stopped") return "starting";
  return result.status;
}

export function watchAgent(agentId: string, deps: WatcherDeps): AgentWatcher {
  const { db, rules, clock, timers, logger } = deps;
  const log = logger.child({ agentId });
  let timer: TimerHandle | undefined;
  let stopped = false;
  const inFlight = new Set<Promise<void>>();

  const intervalFor = (state: WatchdogStateName | undefined) =>
    state === "degraded" || state === "repairing" ? deps.degradedIntervalMs : deps.intervalMs;

  function schedule(delayMs: number, step: () => Promise<void>): void {
    if (stopped) return;
    timers.clearTimeout(timer);
    timer = timers.setTimeout(() => run(step), delayMs);
  }

  function run(step: () => Promise<void>): Promise<void> | undefined {
    if (stopped) return undefined;
    const done = step()
      .catch((err: unknown) => {
        log.warn({ err }, "watchdog step failed; probing again later");
        schedule(deps.degradedIntervalMs, tick);
      })
      .finally(() => inFlight.delete(done));
    inFlight.add(done);
    return done;
  }

  const scheduleTick = (delayMs: number) => schedule(delayMs, tick);

  async function apply(event: WatchdogEvent, agent: WatchedAgent): Promise<WatchdogTransition | null> {
    if (stopped) return null;
    const applied = await applyWatchdogEvent(db, agentId, event, rules, deps.ownerId);
    if (!applied) return null;
    const { previous, transition } = applied;
    const next = transition.snapshot;
    if (next.state !== previous.state) {
      log.info(
        { from: previous.state, to: next.state, lastStatus: next.lastStatus },
        "watchdog state changed",
      );
    }
    countWatchdogNotifications(transition.notify);
    for (const kind of transition.notify) {
      let detail: string | undefined;
      if (kind === "degraded") detail = `last probe: ${next.lastStatus}`;
      if (kind === "repair_started") detail = `last probe: ${next.lastStatus}`;
      if (kind === "repair_failed" && event.type === "repair_failed") detail = event.reason;
      if (kind === "crash_loop") {
        detail = `${next.crashTimes.length} crashes within ${Math.round(rules.crashWindowMs / 1000)} s`;
      }
      deps.notify({ event: kind, agentId, agentName: agent.name, state: next.state, at: event.at, detail });
    }
    return transition;
  }

  async function tick(): Promise<void> {
    const agent = await loadWatchedAgent(db, agentId);
    if (!agent) return scheduleTick(deps.intervalMs); // deleted: the manager lets it go on its next refresh
    const snapshot = await loadWatchdogSnapshot(db, agentId);
    if (agent.status === "stopped") {
      if (snapshot?.state !== "stopped") await apply({ type: "owner_stopped", at: clock.now() }, agent);
      return scheduleTick(deps.intervalMs);
    }
    if (snapshot?.state === "stopped") await apply({ type: "owner_started", at: clock.now() }, agent);
    // Only this process runs repairs for the agent and none is running here: a previous owner died mid-repair.
    if (snapshot?.state === "repairing") await apply({ type: "repair_interrupted", at: clock.now() }, agent);
    if (!agent.url) return scheduleTick(deps.intervalMs);
    const result = await deps.probe(agent.url);
    if (stopped) return;
    const transition = await apply({ type: "probe", at: clock.now(), observation: observe(result) }, agent);
    if (transition?.repair) return startRepair(agent);
    scheduleTick(intervalFor(transition?.snapshot.state));
  }

  /** The agent when the repair may go on; otherwise schedules the next probe and returns null. */
  async function stillRepairing(): Promise<WatchedAgent | null> {
    const agent = await loadWatchedAgent(db, agentId);
    if (!agent) {
      scheduleTick(deps.intervalMs);
      return null;
    }
    if (agent.status === "stopped") {
      await apply({ type: "owner_stopped", at: clock.now() }, agent);
      scheduleTick(deps.intervalMs);
      return null;
    }
    const snapshot = await loadWatchdogSnapshot(db, agentId);
    if (snapshot?.state !== "repairing") {
      log.info({ state: snapshot?.state }, "repair ended early: the state changed meanwhile");
      scheduleTick(intervalFor(snapshot?.state));
      return null;
    }
    return agent;
  }

  async function startRepair(agent: WatchedAgent): Promise<void> {
    const started = await apply({ type: "repair_started", at: clock.now() }, agent);
    if (started?.snapshot.state !== "repairing") return scheduleTick(intervalFor(started?.snapshot.state));
    const serviceId = await resolveServiceId(agent);
    await killGateway(agent, serviceId);
    schedule(deps.repairStopWaitMs, () => restartStep(serviceId));
  }

  async function restartStep(serviceId: string | null): Promise<void> {
    const agent = await stillRepairing();
    if (!agent) return;
    if (!serviceId) return failRepair(agent, null, "the agent's hosting service was not found");
    try {
      await deps.platform.restart(serviceId);
    } catch (err) {
      return failRepair(agent, null, `restart failed: ${errorMessage(err)}`);
    }
    await apply({ type: "repair_restarted", at: clock.now() }, agent);
    schedule(deps.repairVerifyWaitMs, verifyStep);
  }

  async function verifyStep(): Promise<void> {
    const agent = await stillRepairing();
    if (!agent) return;
    const observation = agent.url ? observe(await deps.probe(agent.url)) : null;
    if (stopped) return;
    const transition =
      observation && isUpObservation(observation)
        ? await apply({ type: "repair_succeeded", at: clock.now(), observation }, agent)
        : await apply(
            {
              type: "repair_failed",
              at: clock.now(),
              observation,
              reason: `still ${observation ?? "without a URL"} after the restart`,
            },
            agent,
          );
    scheduleTick(intervalFor(transition?.snapshot.state));
  }

  async function failRepair(agent: WatchedAgent, observation: Observation | null, reason: string) {
    log.warn({ reason }, "watchdog repair failed");
    const transition = await apply({ type: "repair_failed", at: clock.now(), observation, reason }, agent);
    scheduleTick(intervalFor(transition?.snapshot.state));
  }

  async function resolveServiceId(agent: WatchedAgent): Promise<string | null> {
    try {
      const service = await deps.platform.find({
        id: agent.runtimeServiceId,
        name: agentServiceName(agent.id),
        agentId: agent.id,
      });
      return service?.id ?? null;
    } catch (err) {
      log.warn({ err: errorMessage(err) }, "could not look up the agent's hosting service");
      return agent.runtimeServiceId;
    }
  }

  /** Kills the gateway process: through the wrapper when it answers, else by stopping the service. */
  async function killGateway(agent: WatchedAgent, serviceId: string | null): Promise<void> {
    let password: string | null = null;
    try {
      password = deps.adminPassword(agent);
    } catch {
      password = null; // an undecryptable token: fall back to the platform
    }
    if (password && agent.url) {
      try {
        const res = await requestAgent(agent.url, {
          method: "POST",
          path: "/api/gateway/stop",
          token: password,
          // Sent only to the agent's own wrapper: another agent may hold the port of one that crashed.
          identityKey: password,
          timeoutMs: deps.gatewayStopTimeoutMs,
          maxResponseBytes: 64 * 1024,
        });
        if (res.status >= 200 && res.status < 300) return;
        log.info({ httpStatus: res.status }, "wrapper refused to stop the gateway; stopping the service");
      } catch (err) {
        log.info({ err: errorMessage(err) }, "wrapper unreachable; stopping the service");
      }
    }
    if (!serviceId) return;
    try {
      await deps.platform.stop(serviceId);
    } catch (err) {
      log.warn({ err: errorMessage(err) }, "stopping the service failed; restarting anyway");
    }
  }

  return {
    agentId,
    start(delayMs = 0) {
      scheduleTick(delayMs);
    },
    async stop() {
      stopped = true;
      timers.clearTimeout(timer);
      timer = undefined;
      await Promise.allSettled([...inFlight]);
    },
  };
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
