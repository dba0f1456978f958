/**
 * The task scheduler (spec "Scheduled task" states, "Limits"). It runs in every backend process: each tick
 * (every `pollMs` after the previous one ended) first recovers stale claims, then claims due tasks — at
 * most 10 per statement, `FOR UPDATE SKIP LOCKED`, so any number of schedulers on one database dispatch
 * each occurrence exactly once — and dispatches them, keeping up to `concurrency` dispatches in flight and
 * claiming again as they finish, until a claim comes back short: a backlog drains at the dispatch speed,
 * not at 10 per tick.
 *
 * After a 2xx the next run is the schedule's first time after the scheduled one that was not already past
 * when the dispatch began: a slow dispatch never shifts the schedule, and occurrences missed while the
 * platform was down (or the task waited in a backlog) run once, not once each. Every time comes from the
 * injectable clock.
 */
import { type Clock, systemClock } from "@svc/common";
import { nextCronRun } from "@svc/common/cron";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import { systemTimers, type TimerHandle, type Timers } from "../watchdog/timers";
import { type DispatchResult, dispatchTask } from "./dispatch";
import { countDispatch, observeDispatchLag } from "./metrics";
import {
  CLAIM_BATCH_MAX,
  claimDueTasks,
  completeTask,
  failTask,
  nextDueTime,
  type Queryable,
  recoverStaleTasks,
  STALE_AFTER_MS,
  type TaskClaim,
} from "./sql";

/**
 * The shortest pause between ticks: a due task this tick could not claim (another scheduler's claim held
 * it for that instant) is not retried in a busy loop.
 */
const MIN_PAUSE_MS = 200;

export interface TaskSchedulerOptions {
  /** Runs the claim and outcome statements. */
  pool: Queryable;
  /** Reads the agent's URL and gateway token for each dispatch. */
  db: Database;
  dataEncryptionKey: string | undefined;
  logger: Logger;
  /**
   * The longest pause between the end of one tick and the start of the next (SCHEDULER_POLL_MS); the
   * scheduler wakes earlier when the earliest pending task falls due sooner.
   */
  pollMs: number;
  clock?: Clock;
  timers?: Timers;
  /** Dispatches in flight at once (default 10, one claim's worth). */
  concurrency?: number;
  /** Default 30 s. */
  dispatchTimeoutMs?: number;
  /** Default 10 minutes. */
  staleAfterMs?: number;
}

export interface TickReport {
  /** Stale running tasks put back to pending. */
  recovered: number;
  /** Size of each claim statement's result, in order. */
  claims: number[];
  dispatched: number;
}

export interface TaskScheduler {
  start(): void;
  /** Claims nothing more and waits for the dispatches in flight (each ends within its timeout). */
  stop(): Promise<void>;
  /** One tick now (or the one running): what the loop runs every `pollMs`. */
  tick(): Promise<TickReport>;
}

/** The first run after the occurrence `scheduledAt` that was not already due when the dispatch began. */
export function followingRun(cronSchedule: string, scheduledAt: Date, claimedAt: Date): Date | null {
  return nextCronRun(cronSchedule, scheduledAt > claimedAt ? scheduledAt : claimedAt);
}

export function createTaskScheduler(options: TaskSchedulerOptions): TaskScheduler {
  const { pool, logger } = options;
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const concurrency = Math.max(1, options.concurrency ?? CLAIM_BATCH_MAX);
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  const dispatchDeps = {
    db: options.db,
    dataEncryptionKey: options.dataEncryptionKey,
    timeoutMs: options.dispatchTimeoutMs,
  };
  let running: Promise<TickReport> | undefined;
  let handle: TimerHandle | undefined;
  let stopping = false;

  async function recordOutcome(task: TaskClaim, result: DispatchResult): Promise<void> {
    const now = clock.now();
    if (result.ok) {
      const nextRun = followingRun(task.cronSchedule, task.scheduledAt, task.claimedAt);
      if (await completeTask(pool, task, { ranAt: task.claimedAt, nextRun, now })) countDispatch("completed");
      else logger.warn({ taskId: task.id }, "scheduled task lost its claim before completing");
      return;
    }
    const after = await failTask(pool, task, result.error, now);
    if (!after) {
      logger.warn({ taskId: task.id }, "scheduled task lost its claim before its failure was recorded");
      return;
    }
    countDispatch(after.status === "failed" ? "failed" : "retried");
    logger.info(
      { taskId: task.id, attempts: after.attempts, status: after.status, error: result.error },
      "scheduled task dispatch failed",
    );
  }

  async function run(task: TaskClaim): Promise<void> {
    observeDispatchLag((task.claimedAt.getTime() - task.scheduledAt.getTime()) / 1000);
    const result = await dispatchTask(dispatchDeps, task);
    try {
      await recordOutcome(task, result);
    } catch (err) {
      // The task stays running; the stale rule puts it back after 10 minutes.
      logger.error({ err, taskId: task.id }, "could not record a scheduled task's outcome");
    }
  }

  async function drain(report: TickReport): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let exhausted = false;
    for (;;) {
      const free = concurrency - inFlight.size;
      if (!exhausted && !stopping && free > 0) {
        const want = Math.min(free, CLAIM_BATCH_MAX);
        let claims: TaskClaim[] = [];
        try {
          claims = await claimDueTasks(pool, clock.now(), want);
        } catch (err) {
          // The dispatches in flight still finish and record; the next tick claims again.
          logger.warn({ err }, "claiming due scheduled tasks failed");
        }
        report.claims.push(claims.length);
        report.dispatched += claims.length;
        if (claims.length < want) exhausted = true;
        for (const task of claims) {
          const done: Promise<void> = run(task).finally(() => inFlight.delete(done));
          inFlight.add(done);
        }
        if (claims.length === want && inFlight.size < concurrency) continue;
      }
      if (inFlight.size === 0) return;
      await Promise.race(inFlight);
    }
  }

  async function doTick(): Promise<TickReport> {
    const report: TickReport = { recovered: 0, claims: [], dispatched: 0 };
    const recovered = await recoverStaleTasks(pool, clock.now(), staleAfterMs);
    report.recovered = recovered.length;
    if (recovered.length > 0) {
      countDispatch("stale", recovered.length);
      logger.warn({ taskIds: recovered }, "recovered stale running scheduled tasks");
    }
    await drain(report);
    return report;
  }

  function tick(): Promise<TickReport> {
    running ??= doTick().finally(() => {
      running = undefined;
    });
    return running;
  }

  /** Until the earliest pending task falls due, within [MIN_PAUSE_MS, pollMs]. */
  async function pause(): Promise<number> {
    const floor = Math.min(MIN_PAUSE_MS, options.pollMs);
    const next = await nextDueTime(pool);
    if (!next) return options.pollMs;
    return Math.max(floor, Math.min(options.pollMs, next.getTime() - clock.now().getTime()));
  }

  function schedule(delayMs: number): void {
    handle = timers.setTimeout(async () => {
      handle = undefined;
      let delay = options.pollMs;
      try {
        await tick();
        delay = await pause();
      } catch (err) {
        logger.warn({ err }, "scheduler tick failed; trying again at the next one");
      }
      if (!stopping) schedule(delay);
    }, delayMs);
  }

  return {
    tick,
    start() {
      if (stopping || handle) return;
      schedule(0);
    },
    async stop() {
      stopping = true;
      timers.clearTimeout(handle);
      handle = undefined;
      await running?.catch(() => undefined);
    },
  };
}
