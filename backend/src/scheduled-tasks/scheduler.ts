/**
 * The task scheduler, in every backend process. Each tick (at most `pollMs` after the last, sooner when the
 * earliest pending task falls due) recovers stale claims, then claims due tasks — at most 10 per statement,
 * `FOR UPDATE SKIP LOCKED`, so any number of schedulers dispatch each occurrence once — and keeps up to
 * `concurrency` dispatches in flight, claiming again as they finish: a backlog drains at the dispatch speed,
 * not 10 per tick. Slots are shared fairly: each claim takes every user's oldest due task before anyone's
 * second, and a freed slot goes to the user with the fewest in flight (takeFairest), so one user's backlog at
 * a slow agent delays another's task by about one dispatch. The next run is the schedule's first time after
 * the scheduled one not already past at the claim: a slow dispatch never shifts the schedule, and missed
 * occurrences run once. Every time comes from the injectable clock.
 */
import { type Clock, systemClock } from "@svc/common";
import { nextCronRun } from "@svc/common/cron";
import type { Logger } from "pino";
import { systemTimers, type TimerHandle, type Timers } from "../timers";
import { type DispatchResult, dispatchTask } from "./dispatch";
import { countDispatch, observeDispatchLag } from "./metrics";
import {
  CLAIM_BATCH_MAX,
  type Completion,
  claimDueTasks,
  completeTasks,
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

/** Next runs remembered (see nextRunOf); forgotten all at once when full. */
const NEXT_RUN_MEMO_MAX = 1_000;

/** Completions written by one statement at most. */
const COMPLETION_BATCH_MAX = 100;

export interface TaskSchedulerOptions {
  /** Runs the claim and outcome statements. */
  pool: Queryable;
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

/** The first run after the occurrence `scheduledAt` that was not already due when the task was claimed. */
export function followingRun(cronSchedule: string, scheduledAt: Date, claimedAt: Date): Date | null {
  return nextCronRun(cronSchedule, scheduledAt > claimedAt ? scheduledAt : claimedAt);
}

/**
 * Takes the ready task to dispatch next: the first (claims come in turn order) of the user with the fewest
 * dispatches in flight here, so a user whose tasks already hold slots waits behind one who holds none,
 * whatever the order they were claimed in.
 */
export function takeFairest(ready: TaskClaim[], inFlightByUser: ReadonlyMap<string, number>): TaskClaim {
  let best = 0;
  let fewest = Number.POSITIVE_INFINITY;
  for (let i = 0; i < ready.length && fewest > 0; i++) {
    const held = inFlightByUser.get(ready[i].userId) ?? 0;
    if (held < fewest) {
      fewest = held;
      best = i;
    }
  }
  return ready.splice(best, 1)[0];
}

export function createTaskScheduler(options: TaskSchedulerOptions): TaskScheduler {
  const { pool, logger } = options;
  const clock = options.clock ?? systemClock;
  const timers = options.timers ?? systemTimers;
  const concurrency = Math.max(1, options.concurrency ?? CLAIM_BATCH_MAX);
  const staleAfterMs = options.staleAfterMs ?? STALE_AFTER_MS;
  const dispatchDeps = {
    dataEncryptionKey: options.dataEncryptionKey,
    timeoutMs: options.dispatchTimeoutMs,
  };
  let running: Promise<TickReport> | undefined;
  let handle: TimerHandle | undefined;
  let stopping = false;

  /**
   * Successes are written in batches: one statement for every completion waiting (up to 100), the next
   * batch as soon as it returns, so the database sees a few statements per tick instead of one per task.
   */
  const completions: Completion[] = [];
  let flushing: Promise<void> | undefined;

  function complete(completion: Completion): Promise<void> {
    completions.push(completion);
    flushing ??= flushCompletions().finally(() => {
      flushing = undefined;
    });
    return flushing;
  }

  async function flushCompletions(): Promise<void> {
    while (completions.length > 0) {
      const batch = completions.splice(0, COMPLETION_BATCH_MAX);
      try {
        const written = await completeTasks(pool, batch, clock.now());
        countDispatch("completed", written.size);
        const lost = batch.filter((c) => !written.has(c.claim.id)).map((c) => c.claim.id);
        if (lost.length > 0)
          logger.warn({ taskIds: lost }, "scheduled tasks lost their claim before completing");
      } catch (err) {
        // They stay running; the stale rule puts them back after 10 minutes.
        logger.error(
          { err, taskIds: batch.map((c) => c.claim.id) },
          "could not record scheduled tasks' completions",
        );
      }
    }
  }

  /**
   * Next runs by schedule and instant: the tasks of one claim share their claim time and often their
   * schedule and scheduled time, and computing a next run (cron-parser) costs a few tenths of a millisecond.
   */
  const nextRuns = new Map<string, Date | null>();
  function nextRunOf(task: TaskClaim): Date | null {
    const key = `${task.cronSchedule}|${task.scheduledAt.getTime()}|${task.claimedAt.getTime()}`;
    let next = nextRuns.get(key);
    if (next === undefined) {
      if (nextRuns.size >= NEXT_RUN_MEMO_MAX) nextRuns.clear();
      next = followingRun(task.cronSchedule, task.scheduledAt, task.claimedAt);
      nextRuns.set(key, next);
    }
    return next;
  }

  async function recordOutcome(task: TaskClaim, result: DispatchResult): Promise<void> {
    if (result.ok) {
      const nextRun = nextRunOf(task);
      return complete({ claim: task, ranAt: task.claimedAt, nextRun });
    }
    const after = await failTask(pool, task, result.error, clock.now());
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

  /** Dispatches; resolves when the agent answered (the slot is free); the outcome's write joins `writes`. */
  async function run(task: TaskClaim, writes: Set<Promise<void>>): Promise<void> {
    observeDispatchLag((clock.now().getTime() - task.scheduledAt.getTime()) / 1000);
    const result = await dispatchTask(dispatchDeps, task);
    const recorded: Promise<void> = recordOutcome(task, result)
      .catch((err: unknown) => {
        // The task stays running; the stale rule puts it back after 10 minutes.
        logger.error({ err, taskId: task.id }, "could not record a scheduled task's outcome");
      })
      .finally(() => writes.delete(recorded));
    writes.add(recorded);
  }

  /**
   * Claims and dispatches until a claim comes back short. Up to two claims (20 tasks) are kept ready
   * beyond the dispatches in flight (a claim may be slow on a busy database), and a slot is free again as
   * soon as its agent answered (the outcome is written meanwhile): no statement stands between one dispatch
   * and the next. The tick ends when every claimed task was dispatched and every outcome written.
   */
  async function drain(report: TickReport): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    /** Dispatches in flight per user, so a freed slot goes to the user holding the fewest. */
    const inFlightByUser = new Map<string, number>();
    const writes = new Set<Promise<void>>();
    const ready: TaskClaim[] = [];
    const capacity = concurrency + 2 * CLAIM_BATCH_MAX;
    let exhausted = false;
    let claiming: Promise<void> | undefined;

    const claimMore = () => {
      const room = capacity - inFlight.size - ready.length;
      // Whole claims of 10 while work is at hand (fewer statements); whatever fits when idle.
      const want = Math.min(CLAIM_BATCH_MAX, room);
      const busy = inFlight.size + ready.length > 0;
      if (claiming || exhausted || stopping || want <= 0 || (busy && want < CLAIM_BATCH_MAX)) return;
      claiming = (async () => {
        try {
          const claims = await claimDueTasks(pool, clock.now(), want);
          report.claims.push(claims.length);
          report.dispatched += claims.length;
          if (claims.length < want) exhausted = true;
          ready.push(...claims);
        } catch (err) {
          // What is in flight still finishes and records; the next tick claims again.
          logger.warn({ err }, "claiming due scheduled tasks failed");
          exhausted = true;
        }
      })().finally(() => {
        claiming = undefined;
      });
    };

    for (;;) {
      while (inFlight.size < concurrency && ready.length > 0) {
        const task = takeFairest(ready, inFlightByUser);
        inFlightByUser.set(task.userId, (inFlightByUser.get(task.userId) ?? 0) + 1);
        const done: Promise<void> = run(task, writes).finally(() => {
          inFlight.delete(done);
          const left = (inFlightByUser.get(task.userId) ?? 1) - 1;
          if (left > 0) inFlightByUser.set(task.userId, left);
          else inFlightByUser.delete(task.userId);
        });
        inFlight.add(done);
      }
      claimMore();
      if (!claiming && inFlight.size === 0 && ready.length === 0) break;
      await Promise.race(claiming ? [...inFlight, claiming] : inFlight);
    }
    while (writes.size > 0) await Promise.all([...writes]);
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
