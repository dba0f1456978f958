/**
 * The watchdog of one backend process. Every `refreshIntervalMs` (30 s) it lists the agents to watch
 * (deployed, with a URL: `listWatchableAgentIds`), takes the advisory lock of each one nobody watches,
 * starts a watcher for each lock it got, and stops watching (and unlocks) agents that are gone. With several
 * processes on one database each agent is watched by exactly one; when a process stops or dies, the others
 * take its agents over on their next refresh.
 */
import { hostname } from "node:os";
import { type Clock, openGatewayToken, randomId, systemClock, wrapperAdminPassword } from "@svc/common";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import type { BackendConfig } from "../config";
import { type ProbeResult, probeRuntime } from "../runtime/probe";
import { systemTimers, type TimerHandle, type Timers } from "../timers";
import { type AgentLocks, openAgentLocks } from "./locks";
import { createWatchdogNotifier, type WatchdogNotification, type WatchdogNotifier } from "./notifier";
import type { WatchdogRules } from "./state";
import { claimWatchdogRow, listWatchableAgentIds, type WatchedAgent } from "./store";
import { type AgentWatcher, type WatchdogPlatform, watchAgent } from "./watcher";

/** The backend configuration the watchdog reads. */
export type WatchdogConfig = Pick<
  BackendConfig,
  | "WATCHDOG_AUTO_REPAIR"
  | "WATCHDOG_INTERVAL_MS"
  | "WATCHDOG_DEGRADED_INTERVAL_MS"
  | "WATCHDOG_CRASH_WINDOW_MS"
  | "WATCHDOG_CRASH_THRESHOLD"
  | "WATCHDOG_STARTUP_GRACE_MS"
  | "WATCHDOG_BOT_TOKEN"
  | "WATCHDOG_ADMIN_CHAT_ID"
  | "WATCHDOG_BOT_API_URL"
  | "WATCHDOG_WEBHOOK_URL"
>;

export const WATCHDOG_REFRESH_INTERVAL_MS = 30_000;
export const REPAIR_STOP_WAIT_MS = 5_000;
export const REPAIR_VERIFY_WAIT_MS = 30_000;

export interface WatchdogManagerOptions {
  db: Database;
  /** The lock session connects here (its own connection, held for the life of the manager). */
  connectionString: string;
  platform: WatchdogPlatform;
  config: WatchdogConfig;
  logger: Logger;
  /** Opens the agents' gateway tokens for the wrapper's gateway stop; without it the platform stops them. */
  dataEncryptionKey?: string;
  clock?: Clock;
  timers?: Timers;
  probe?: (baseUrl: string) => Promise<ProbeResult>;
  notifier?: WatchdogNotifier;
  /** This process's id in `watchdog_states.owner_id` (informational). */
  ownerId?: string;
  refreshIntervalMs?: number;
  /**
   * Agents taken over in one refresh get their first probe this far apart (default 100 ms), so a process
   * taking over thousands of agents does not probe them all at once.
   */
  firstProbeSpacingMs?: number;
  repairStopWaitMs?: number;
  repairVerifyWaitMs?: number;
}

export interface WatchdogManager {
  readonly ownerId: string;
  /** Takes the locks it can and starts watching; resolves after the first refresh. */
  start(): Promise<void>;
  /** Stops every watcher, waits for notifications in flight, and frees the locks. */
  stop(): Promise<void>;
  /** Lists, locks and releases now (also runs on its own every refresh interval). */
  refresh(): Promise<void>;
  /** Agents this process watches now. */
  watching(): string[];
}

export function watchdogRules(config: WatchdogConfig): WatchdogRules {
  return {
    crashWindowMs: config.WATCHDOG_CRASH_WINDOW_MS,
    crashThreshold: config.WATCHDOG_CRASH_THRESHOLD,
    startupGraceMs: config.WATCHDOG_STARTUP_GRACE_MS,
    autoRepair: config.WATCHDOG_AUTO_REPAIR,
  };
}

export function createWatchdogManager(options: WatchdogManagerOptions): WatchdogManager {
  const { db, config, logger } = options;
  const timers = options.timers ?? systemTimers;
  const clock = options.clock ?? systemClock;
  const ownerId = options.ownerId ?? `${hostname()}:${process.pid}:${randomId(6)}`;
  const refreshIntervalMs = options.refreshIntervalMs ?? WATCHDOG_REFRESH_INTERVAL_MS;
  const log = logger.child({ component: "watchdog", ownerId });
  const notifier =
    options.notifier ??
    createWatchdogNotifier({
      botToken: config.WATCHDOG_BOT_TOKEN,
      adminChatId: config.WATCHDOG_ADMIN_CHAT_ID,
      botApiUrl: config.WATCHDOG_BOT_API_URL,
      webhookUrl: config.WATCHDOG_WEBHOOK_URL,
      logger: log,
    });
  const key = options.dataEncryptionKey;
  // The wrapper's admin password, derived from the agent's gateway token (never the token itself).
  const adminPassword = (agent: WatchedAgent) =>
    key && agent.gatewayTokenEncrypted
      ? wrapperAdminPassword(key, agent.id, openGatewayToken(key, agent.gatewayTokenEncrypted))
      : null;

  const watchers = new Map<string, AgentWatcher>();
  const notifications = new Set<Promise<void>>();
  let locks: AgentLocks | undefined;
  let refreshTimer: TimerHandle | undefined;
  let refreshing: Promise<void> | undefined;
  let running = false;

  const notify = (n: WatchdogNotification) => {
    // Sent beside the watchdog, never in its way: a hanging channel only holds its own promise.
    const sent = notifier
      .notify(n)
      .catch(() => undefined)
      .finally(() => notifications.delete(sent));
    notifications.add(sent);
  };

  const watcherDeps = {
    db,
    rules: watchdogRules(config),
    intervalMs: config.WATCHDOG_INTERVAL_MS,
    degradedIntervalMs: config.WATCHDOG_DEGRADED_INTERVAL_MS,
    repairStopWaitMs: options.repairStopWaitMs ?? REPAIR_STOP_WAIT_MS,
    repairVerifyWaitMs: options.repairVerifyWaitMs ?? REPAIR_VERIFY_WAIT_MS,
    gatewayStopTimeoutMs: 5_000,
    clock,
    timers,
    probe: options.probe ?? ((url: string) => probeRuntime(url)),
    platform: options.platform,
    adminPassword,
    notify,
    logger: log,
    ownerId,
  };

  /** The lock session died: its locks are gone, so is every claim to watch. */
  function dropAll(): void {
    const dropped = [...watchers.values()];
    watchers.clear();
    locks = undefined;
    for (const watcher of dropped) void watcher.stop();
  }

  async function refreshOnce(): Promise<void> {
    if (!locks?.connected) {
      locks = await openAgentLocks(options.connectionString, {
        applicationName: `svc-watchdog:${ownerId}`,
        logger: log,
        onLost: dropAll,
      });
    }
    const session = locks;
    const wanted = new Set(await listWatchableAgentIds(db));
    for (const [agentId, watcher] of watchers) {
      if (wanted.has(agentId)) continue;
      watchers.delete(agentId);
      await watcher.stop();
      await session.unlock(agentId);
    }
    const candidates = [...wanted].filter((id) => !watchers.has(id));
    const won = await session.tryLock(candidates);
    const spacing = options.firstProbeSpacingMs ?? 100;
    for (const [index, agentId] of won.entries()) {
      if (!running || locks !== session) {
        await session.unlock(agentId).catch(() => undefined);
        continue;
      }
      await claimWatchdogRow(db, agentId, ownerId, clock);
      const watcher = watchAgent(agentId, watcherDeps);
      watchers.set(agentId, watcher);
      watcher.start(Math.min(index * spacing, config.WATCHDOG_INTERVAL_MS));
    }
    if (won.length > 0)
      log.info({ agents: won.length, watching: watchers.size }, "watchdog took over agents");
  }

  async function refresh(): Promise<void> {
    if (!running) return;
    // One refresh at a time: a timer firing during a manual refresh waits for it instead.
    if (!refreshing) {
      refreshing = refreshOnce()
        .catch((err: unknown) => log.warn({ err }, "watchdog refresh failed; retrying on the next one"))
        .finally(() => {
          refreshing = undefined;
        });
    }
    await refreshing;
  }

  function scheduleRefresh(): void {
    if (!running) return;
    refreshTimer = timers.setTimeout(async () => {
      await refresh();
      scheduleRefresh();
    }, refreshIntervalMs);
  }

  return {
    ownerId,
    async start() {
      if (running) return;
      running = true;
      await refresh();
      scheduleRefresh();
      log.info({ watching: watchers.size, channels: notifier.channels }, "watchdog started");
    },
    async stop() {
      if (!running) return;
      running = false;
      timers.clearTimeout(refreshTimer);
      await refreshing;
      const stopping = [...watchers.values()];
      watchers.clear();
      await Promise.allSettled(stopping.map((w) => w.stop()));
      await Promise.allSettled([...notifications]);
      await locks?.close();
      locks = undefined;
      log.info("watchdog stopped");
    },
    refresh,
    watching: () => [...watchers.keys()].sort(),
  };
}
