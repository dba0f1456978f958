/** The task scheduler's SQL, one file per operation. */
export { CLAIM_BATCH_MAX, claimDueTasks } from "./claimDueTasks";
export { type Completion, completeTasks } from "./completeTasks";
export { BACKOFF_MAX_SECONDS, BACKOFF_STEP_SECONDS, type FailedTask, failTask } from "./failTask";
export { nextDueTime } from "./nextDueTime";
export { recoverStaleTasks, STALE_AFTER_MS, STALE_WORKER_ERROR } from "./recoverStaleTasks";
export type { Queryable, TaskClaim } from "./shared";
