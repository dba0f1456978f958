/** The scheduler's metrics: dispatches by outcome and the lag from a task's `nextRun` to its dispatch. */
import { counter, histogram } from "@svc/common/metrics/index";

/** completed (2xx), retried (failed, backoff), failed (attempts exhausted), stale (recovered claim). */
export type DispatchOutcome = "completed" | "retried" | "failed" | "stale";

function dispatches() {
  return counter<"outcome">({
    name: "scheduled_task_dispatches_total",
    help: "Scheduled-task dispatches by outcome: completed (2xx), retried (failed, will retry after the backoff), failed (attempts exhausted), stale (a claim recovered after 10 minutes)",
    labelNames: ["outcome"],
  });
}

function lag() {
  return histogram({
    name: "scheduled_task_dispatch_lag_seconds",
    help: "Time from a scheduled task's nextRun to the scheduler claiming it for dispatch",
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600],
  });
}

export function countDispatch(outcome: DispatchOutcome, n = 1): void {
  dispatches().inc({ outcome }, n);
}

export function observeDispatchLag(seconds: number): void {
  lag().observe(Math.max(0, seconds));
}
