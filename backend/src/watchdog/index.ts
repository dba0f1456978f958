/** The watchdog; see manager.ts and state.ts. */
export { type AgentLocks, openAgentLocks, WATCHDOG_LOCK_CLASS } from "./locks";
export {
  createWatchdogManager,
  REPAIR_STOP_WAIT_MS,
  REPAIR_VERIFY_WAIT_MS,
  WATCHDOG_REFRESH_INTERVAL_MS,
  type WatchdogConfig,
  type WatchdogManager,
  type WatchdogManagerOptions,
  watchdogRules,
} from "./manager";
export {
  createWatchdogNotifier,
  notificationText,
  type WatchdogNotification,
  type WatchdogNotifier,
} from "./notifier";
export * from "./state";
export {
  loadWatchdogSnapshot,
  resetAfterOperatorAction,
  UNWATCHED_AGENT_STATUSES,
  WATCHDOG_MANAGED_AGENT_STATUSES,
} from "./store";
export { observe, type WatchdogPlatform } from "./watcher";
