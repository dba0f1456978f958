/**
 * A job worker: claims up to `concurrency` jobs at a time, runs each with the processor of its type, and
 * records the outcome (fenced by the claim's lock token). It wakes on `LISTEN platform_jobs` (enqueue
 * NOTIFYs), with a slow poll as a safety net, and sweeps stale running jobs. While a job runs, its lock is
 * refreshed every `lockRefreshIntervalMs` (one primary-key update), so the stale rule requeues only the jobs
 * of a worker that died; a refresh that finds the claim lost aborts the processor (its signal) and its
 * outcome is never written. On stop it claims nothing more, lets running jobs finish within the grace
 * period, and releases the rest back to `queued`.
 *
 * The worker owns its connections (`concurrency + 2`): HTTP load on the service's pool can never starve it,
 * and its sessions carry the queue's planner settings (`QUEUE_SESSION_OPTIONS`), so the prepared claim keeps
 * the index walk whatever the table's statistics said when it was planned.
 */
import { isDatabaseError } from "@svc/common/db-errors";
import { secondsSince } from "@svc/common/metrics/index";
import { DATABASE_CONNECTION_TIMEOUT_MS } from "@svc/db";
import type { PlatformJob } from "@svc/db/schema";
import pg from "pg";
import type { Logger } from "pino";
import { createPgListener } from "../db/listener";
import { systemTimers, type TimerHandle, type Timers } from "../watchdog/timers";
import { observeJobClaim, observeJobRun } from "./metrics";
import {
  type Claim,
  claimJobs,
  completeAndClaimJobs,
  databaseClock,
  failJob,
  QUEUE_SESSION_OPTIONS,
  type QueueClock,
  refreshJobLock,
  releaseJobs,
  reportJobProgress,
  requeueStaleJobs,
} from "./sql";
import { PermanentJobError, type ProcessorRegistry } from "./types";

export interface JobWorkerOptions {
  /** The worker's own pool and its LISTEN connection (a pooled client cannot hold LISTEN) connect here. */
  connectionString: string;
  processors: ProcessorRegistry;
  logger: Logger;
  concurrency: number;
  lanes?: readonly string[];
  pollIntervalMs: number;
  staleAfterMs: number;
  /** How often the stale rule is applied; default a tenth of staleAfterMs, at most 30 s. */
  staleSweepIntervalMs?: number;
  /**
   * How often a running job's lock is refreshed; default a tenth of staleAfterMs, at most 60 s. Must be
   * shorter than staleAfterMs.
   */
  lockRefreshIntervalMs?: number;
  shutdownGraceMs: number;
  clock?: QueueClock;
  /** Poll, stale sweep and lock refresh run on these (tests: ManualTimers on the queue's ManualClock). */
  timers?: Timers;
}

export interface JobWorker {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Jobs running right now. */
  readonly active: number;
}

const RETRY_DELAYS_MS = [100, 250, 500, 1_000, 2_000, 5_000];

/** A job's error when its processor failed on a database error (whose own text carries SQL and values). */
export const DATABASE_ERROR_MESSAGE = "a database error interrupted this job (logged on the backend)";

/** A claimed job being run: its abort (shutdown or lost claim) and its lock heartbeat. */
interface HeldJob {
  claim: Claim;
  abort: AbortController;
  done: Promise<void>;
  heartbeat: TimerHandle | undefined;
  /** The processor returned: no more heartbeats, and a lost claim no longer aborts anything. */
  finished: boolean;
}

export function createJobWorker(options: JobWorkerOptions): JobWorker {
  const { processors, logger, concurrency } = options;
  const refreshEvery =
    options.lockRefreshIntervalMs ?? Math.max(1, Math.min(60_000, Math.floor(options.staleAfterMs / 10)));
  if (refreshEvery >= options.staleAfterMs)
    throw new Error(
      `lockRefreshIntervalMs (${refreshEvery}) must be shorter than staleAfterMs (${options.staleAfterMs})`,
    );
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: concurrency + 2,
    application_name: "svc-job-worker",
    options: QUEUE_SESSION_OPTIONS,
    connectionTimeoutMillis: DATABASE_CONNECTION_TIMEOUT_MS,
  });
  pool.on("error", (err) => logger.warn({ err }, "idle job worker connection failed"));
  const clock = options.clock ?? databaseClock;
  const lanes = options.lanes && options.lanes.length > 0 ? options.lanes : null;
  const timers = options.timers ?? systemTimers;
  const sweepEvery =
    options.staleSweepIntervalMs ?? Math.min(30_000, Math.max(1_000, options.staleAfterMs / 10));
  const held = new Map<string, HeldJob>();
  let stopping = false;
  /** The pool is ended (stop is done): an outcome still being written is left to the stale rule. */
  let closed = false;
  let started = false;
  // Enqueues NOTIFY; after a reconnect it claims at once (a NOTIFY sent meanwhile was lost).
  const listener = createPgListener({
    connectionString: options.connectionString,
    channel: "platform_jobs",
    applicationName: "svc-job-listener",
    logger,
    name: "job listener",
    onNotification: () => void fill(),
    onReconnect: () => void fill(),
  });
  const loops: Array<{ handle: TimerHandle | undefined }> = [];

  /** Runs `task` every `everyMs` (after the previous run ended) until stop. */
  function repeat(task: () => Promise<void>, everyMs: number): void {
    const loop: { handle: TimerHandle | undefined } = { handle: undefined };
    const schedule = () => {
      loop.handle = timers.setTimeout(async () => {
        try {
          await task();
        } finally {
          if (!stopping) schedule();
        }
      }, everyMs);
    };
    loops.push(loop);
    schedule();
  }

  /**
   * Claims for every free slot. Several claims may be in flight at once (each reserves the slots it asks
   * for), so a busy worker is never held back by one round trip. A wake-up that finds every free slot
   * already being claimed is remembered and retried when a claim comes back short.
   */
  let reserved = 0;
  let wakeWanted = false;
  async function fill(): Promise<void> {
    if (stopping) return;
    const free = concurrency - held.size - reserved;
    if (free <= 0) {
      if (reserved > 0) wakeWanted = true;
      return;
    }
    reserved += free;
    let claims: Claim[] = [];
    try {
      const claimStarted = process.hrtime.bigint();
      claims = await claimJobs(pool, clock, free, lanes);
      observeJobClaim("claim", secondsSince(claimStarted));
    } catch (err) {
      logger.warn({ err }, "claiming jobs failed; retrying shortly");
      setTimeout(() => void fill(), 1_000).unref();
    } finally {
      reserved -= free;
    }
    if (stopping) {
      // Claimed while stopping: hand them straight back.
      await releaseClaims(claims);
      return;
    }
    for (const claim of claims) run(claim);
    if (claims.length === free || wakeWanted) {
      wakeWanted = false;
      void fill();
    }
  }

  /** Hands claims made while stopping back to `queued` (best effort: the stale rule covers a failure). */
  async function releaseClaims(claims: Claim[]): Promise<void> {
    await releaseJobs(
      pool,
      clock,
      claims.map((c) => ({ id: c.job.id, lockToken: c.lockToken })),
    ).catch(() => undefined);
  }

  function run(claim: Claim): void {
    const entry: HeldJob = {
      claim,
      abort: new AbortController(),
      done: Promise.resolve(),
      heartbeat: undefined,
      finished: false,
    };
    held.set(claim.job.id, entry);
    scheduleHeartbeat(entry);
    entry.done = execute(entry).finally(() => {
      entry.finished = true;
      timers.clearTimeout(entry.heartbeat);
      held.delete(claim.job.id);
      void fill();
    });
  }

  function scheduleHeartbeat(entry: HeldJob): void {
    entry.heartbeat = timers.setTimeout(() => heartbeat(entry), refreshEvery);
  }

  /** Refreshes the job's lock; a lost claim aborts the processor, a failed refresh waits for the next beat. */
  async function heartbeat(entry: HeldJob): Promise<void> {
    entry.heartbeat = undefined;
    if (entry.finished || closed) return;
    const { job, lockToken } = entry.claim;
    try {
      if (!(await refreshJobLock(pool, clock, { id: job.id, lockToken }))) {
        if (entry.finished || entry.abort.signal.aborted) return;
        logger.warn(
          { jobId: job.id, jobType: job.jobType },
          "job lost its claim while running; aborting it, its outcome will not be written",
        );
        entry.abort.abort(new Error("the job's claim was lost"));
        return;
      }
    } catch (err) {
      logger.warn({ err, jobId: job.id }, "refreshing the job's lock failed; trying again at the next beat");
    }
    if (!entry.finished && !closed) scheduleHeartbeat(entry);
  }

  async function execute(entry: HeldJob): Promise<void> {
    const { claim } = entry;
    const { job } = claim;
    const signal = entry.abort.signal;
    const fence = { id: job.id, lockToken: claim.lockToken };
    let outcome: { ok: true; result: Record<string, unknown> } | { ok: false; error: string; final: boolean };
    const started = process.hrtime.bigint();
    try {
      const processor = processors[job.jobType];
      if (!processor) throw new Error(`no processor for job type ${job.jobType}`);
      // One write after the other, so the last step reported is the one stored.
      let reported = Promise.resolve();
      const progress = (step: string) => {
        reported = reported.then(async () => {
          if (entry.finished || closed) return;
          await reportJobProgress(pool, clock, fence, step).catch((err: unknown) =>
            logger.warn({ err, jobId: job.id }, "recording the job's progress failed"),
          );
        });
        return reported;
      };
      outcome = { ok: true, result: await processor(job, { signal, logger, progress }) };
    } catch (err) {
      // A database failure's text (drizzle's "Failed query: <SQL>\nparams: <values>") is not the job's to
      // show its owner: the job's error says so, the log (which leaves the parameters out) has the rest.
      const database = isDatabaseError(err);
      if (database)
        logger.warn({ err, jobId: job.id, jobType: job.jobType }, "a database error interrupted a job");
      outcome = {
        ok: false,
        error: database ? DATABASE_ERROR_MESSAGE : err instanceof Error ? err.message : String(err),
        final: err instanceof PermanentJobError,
      };
    }
    entry.finished = true;
    timers.clearTimeout(entry.heartbeat);
    const seconds = secondsSince(started);
    // Released at shutdown, or the claim was lost: the job is someone else's now.
    if (signal.aborted) {
      observeJobRun(job, "aborted", seconds);
      return;
    }
    await persist(job, async () => {
      if (outcome.ok) {
        if (await completeAndContinue(fence, outcome.result)) observeJobRun(job, "completed", seconds);
        else logger.warn({ jobId: job.id }, "job lost its claim before completing");
      } else {
        const after = await failJob(pool, clock, fence, outcome.error, { final: outcome.final });
        if (after) observeJobRun(job, after.status === "failed" ? "failed" : "retried", seconds);
        logger.info(
          { jobId: job.id, jobType: job.jobType, status: after?.status, error: outcome.error },
          "job attempt failed",
        );
      }
    });
  }

  /**
   * A finished job hands its slot straight to the next one: one statement completes it and claims a
   * successor (each slot works like its own loop, so up to `concurrency` statements are in flight).
   */
  async function completeAndContinue(
    fence: { id: string; lockToken: string },
    result: Record<string, unknown>,
  ): Promise<boolean> {
    const claimStarted = process.hrtime.bigint();
    const { completed, claims } = await completeAndClaimJobs(
      pool,
      clock,
      { ...fence, result },
      stopping ? 0 : 1,
      lanes,
    );
    observeJobClaim("complete_and_claim", secondsSince(claimStarted));
    if (stopping) {
      await releaseClaims(claims);
    } else {
      for (const claim of claims) run(claim);
    }
    return completed.has(fence.id);
  }

  /** Writes an outcome, retrying through a database outage; gives up to the stale rule after a while. */
  async function persist(job: PlatformJob, write: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await write();
        return;
      } catch (err) {
        const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
        if (attempt >= 20 || closed) {
          logger.error(
            { err, jobId: job.id },
            "could not record the job's outcome; the stale rule will requeue it",
          );
          return;
        }
        await new Promise((r) => setTimeout(r, delay));
      }
    }
  }

  async function sweep(): Promise<void> {
    try {
      const requeued = await requeueStaleJobs(pool, clock, options.staleAfterMs);
      if (requeued.length > 0) logger.warn({ jobIds: requeued }, "requeued stale running jobs");
    } catch (err) {
      logger.warn({ err }, "stale sweep failed");
    }
  }

  return {
    get active() {
      return held.size;
    },
    async start() {
      if (started) return;
      started = true;
      // A listener that cannot connect yet retries in the background; the poll covers it meanwhile.
      await listener.start();
      repeat(fill, options.pollIntervalMs);
      repeat(sweep, sweepEvery);
      await sweep();
      await fill();
    },
    async stop() {
      if (stopping) return;
      stopping = true;
      for (const loop of loops) timers.clearTimeout(loop.handle);
      await listener.stop();
      const running = [...held.values()];
      const grace = new Promise((r) => setTimeout(r, options.shutdownGraceMs).unref());
      await Promise.race([Promise.all(running.map((h) => h.done)), grace]);
      const unfinished = [...held.values()];
      for (const h of unfinished) {
        h.abort.abort();
        timers.clearTimeout(h.heartbeat);
      }
      const released = await releaseJobs(
        pool,
        clock,
        unfinished.map((h) => ({ id: h.claim.job.id, lockToken: h.claim.lockToken })),
      ).catch((err: unknown) => {
        logger.error({ err }, "could not release unfinished jobs; the stale rule will requeue them");
        return 0;
      });
      if (released > 0) logger.info({ released }, "released unfinished jobs back to the queue");
      closed = true;
      await pool.end().catch(() => undefined);
    },
  };
}
