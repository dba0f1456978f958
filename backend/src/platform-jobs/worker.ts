/**
 * A job worker: claims up to `concurrency` jobs, runs each with its type's processor and records the outcome,
 * fenced by the claim's lock token; completions and claims travel together in one statement. It wakes on
 * `LISTEN platform_jobs`, with a slow poll as a safety net, and sweeps stale running jobs. A running job's lock
 * is refreshed (one primary-key update), so the stale rule requeues only the jobs of a worker that died; a
 * refresh that finds the claim lost aborts the processor and its outcome is never written. On stop it lets
 * running jobs finish within the grace and releases the rest. Its own connections (`concurrency + 2`) mean HTTP
 * load can never starve it, and carry `QUEUE_SESSION_OPTIONS`, so the prepared claim keeps its index walk.
 */
import { isDatabaseError } from "@svc/common/db-errors";
import { secondsSince } from "@svc/common/metrics/index";
import { DATABASE_CONNECTION_TIMEOUT_MS } from "@svc/db";
import type { PlatformJob } from "@svc/db/schema";
import pg from "pg";
import type { Logger } from "pino";
import { createPgListener } from "../db/listener";
import { systemTimers, type TimerHandle, type Timers } from "../timers";
import { observeJobClaim, observeJobRun } from "./metrics";
import {
  type Claim,
  completeAndClaimJobs,
  databaseClock,
  failJob,
  QUEUE_SESSION_OPTIONS,
  QUEUE_TYPES,
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
/** Failed writes of one outcome before it is left to the stale rule. */
const MAX_WRITE_RETRIES = 20;

/** A job's error when its processor failed on a database error (whose own text carries SQL and values). */
export const DATABASE_ERROR_MESSAGE = "a database error interrupted this job (logged on the backend)";

/** A finished job waiting for its completion to be written by the worker's next exchange. */
interface Completion {
  entry: HeldJob;
  result: Record<string, unknown>;
  /** Failed writes so far (a database outage). */
  failures: number;
  /** Written (true), fenced out because the claim was lost (false), or left to the stale rule (null). */
  settle: (completed: boolean | null) => void;
}

/** A claimed job being run: its abort (shutdown or lost claim) and its lock heartbeat. */
interface HeldJob {
  claim: Claim;
  /** Its signal is made only when the processor reads it (most never do). */
  abort: AbortController;
  /** Released at shutdown or its claim was lost: the job is someone else's now. */
  aborted: boolean;
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
    types: QUEUE_TYPES,
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
    onNotification: () => void exchange(),
    onReconnect: () => void exchange(),
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

  /** Processors running now: the rest of `concurrency` is free. */
  let processing = 0;
  /** Finished jobs whose completion goes out with the next exchange. */
  const finished: Completion[] = [];
  /** The exchange in flight (one at a time), and the connection exchanges keep between them. */
  let exchanging: Promise<void> | undefined;
  let exchangeClient: pg.PoolClient | undefined;
  /** A wake-up or a finished job came while an exchange was in flight: exchange again after it. */
  let again = false;
  let scheduled = false;
  let retryTimer: NodeJS.Timeout | undefined;

  /** Exchanges once the jobs finishing in this turn of the event loop have joined the batch. */
  function scheduleExchange(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void exchange();
    });
  }

  /**
   * The worker's one statement with the queue: completes every job that finished since the last exchange
   * and claims for every free slot (the finished jobs' slots included), so a busy worker pays one round
   * trip per batch of up to `concurrency` jobs instead of one or two per job. One exchange is in flight at
   * a time: what comes meanwhile (a NOTIFY, a finished job) is taken by the next one, so jobs finishing
   * together share a statement. (Measured: two in flight with half the batch each cost 50 % more
   * PostgreSQL CPU per job; each statement carries a fixed ~300 µs of executor work on this table.) A
   * failed exchange keeps its completions and tries again after a backoff.
   */
  function exchange(): Promise<void> {
    if (closed) {
      abandon();
      return Promise.resolve();
    }
    if (exchanging || retryTimer) {
      again = true;
      return Promise.resolve();
    }
    const free = stopping ? 0 : concurrency - processing;
    if (finished.length === 0 && free === 0) return Promise.resolve();
    exchanging = exchangeNow(free);
    return exchanging;
  }

  async function exchangeNow(free: number): Promise<void> {
    const batch = finished.splice(0, finished.length);
    let claims: Claim[] = [];
    let failed = false;
    let client: pg.PoolClient | undefined;
    try {
      const started = process.hrtime.bigint();
      client = await exchangeConnection();
      const out = await completeAndClaimJobs(
        client,
        clock,
        batch.map((c) => ({
          id: c.entry.claim.job.id,
          lockToken: c.entry.claim.lockToken,
          result: c.result,
        })),
        free,
        lanes,
      );
      observeJobClaim(batch.length > 0 ? "complete_and_claim" : "claim", secondsSince(started));
      claims = out.claims;
      for (const c of batch) c.settle(out.completed.has(c.entry.claim.job.id));
    } catch (err) {
      failed = true;
      if (client) dropExchangeConnection(client, err);
      retryAfter(err, batch);
    } finally {
      exchanging = undefined;
    }
    if (stopping) await releaseClaims(claims);
    else for (const claim of claims) run(claim);
    if (!failed && (again || finished.length > 0)) {
      again = false;
      void exchange();
    }
  }

  /**
   * The exchanges' connection, checked out of the worker's pool once and kept: checking it out and back
   * for every statement cost the worker as much CPU as reading the statement's rows. Any failure drops
   * it (the next exchange connects anew); stop hands it back.
   */
  async function exchangeConnection(): Promise<pg.PoolClient> {
    if (exchangeClient) return exchangeClient;
    const client = await pool.connect();
    // A held connection that fails between statements (a database restart) is dropped, not thrown.
    client.on("error", (err) => dropExchangeConnection(client, err));
    exchangeClient = client;
    return client;
  }

  function dropExchangeConnection(client: pg.PoolClient, err?: unknown): void {
    if (exchangeClient !== client) return;
    exchangeClient = undefined;
    client.release(err instanceof Error ? err : err !== undefined);
  }

  /** A failed exchange: its completions wait for the retry (through a database outage), up to a limit. */
  function retryAfter(err: unknown, batch: Completion[]): void {
    const kept: Completion[] = [];
    for (const c of batch) {
      if (++c.failures > MAX_WRITE_RETRIES || closed) giveUp(c, err);
      else kept.push(c);
    }
    finished.unshift(...kept);
    if (kept.length === 0) logger.warn({ err }, "claiming jobs failed; retrying shortly");
    const delay =
      kept.length > 0 ? RETRY_DELAYS_MS[Math.min(kept[0].failures, RETRY_DELAYS_MS.length) - 1] : 1_000;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void exchange();
    }, delay);
    if (kept.length === 0) retryTimer.unref();
  }

  function giveUp(c: Completion, err: unknown): void {
    logger.error(
      { err, jobId: c.entry.claim.job.id },
      "could not record the job's outcome; the stale rule will requeue it",
    );
    c.settle(null);
  }

  /** The pool is ended: completions not written yet are left to the stale rule. */
  function abandon(): void {
    for (const c of finished.splice(0, finished.length)) giveUp(c, new Error("the job worker stopped"));
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
      aborted: false,
      done: Promise.resolve(),
      heartbeat: undefined,
      finished: false,
    };
    held.set(claim.job.id, entry);
    processing++;
    scheduleHeartbeat(entry);
    entry.done = execute(entry)
      .catch(() => false)
      .then((handedOn) => {
        held.delete(claim.job.id);
        // A completion's exchange already claimed for its slot; any other ending refills the slot here.
        if (!handedOn) scheduleExchange();
      });
  }

  function abortJob(entry: HeldJob, reason?: Error): void {
    entry.aborted = true;
    entry.abort.abort(reason);
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
        if (entry.finished || entry.aborted) return;
        logger.warn(
          { jobId: job.id, jobType: job.jobType },
          "job lost its claim while running; aborting it, its outcome will not be written",
        );
        abortJob(entry, new Error("the job's claim was lost"));
        return;
      }
    } catch (err) {
      logger.warn({ err, jobId: job.id }, "refreshing the job's lock failed; trying again at the next beat");
    }
    if (!entry.finished && !closed) scheduleHeartbeat(entry);
  }

  /** Runs the job and records its outcome; true when its completion's exchange also claimed for its slot. */
  async function execute(entry: HeldJob): Promise<boolean> {
    const { claim } = entry;
    const { job } = claim;
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
      const context = {
        get signal() {
          return entry.abort.signal;
        },
        logger,
        progress,
      };
      outcome = { ok: true, result: await processor(job, context) };
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
    processing--;
    timers.clearTimeout(entry.heartbeat);
    const seconds = secondsSince(started);
    // Released at shutdown, or the claim was lost: the job is someone else's now.
    if (entry.aborted) {
      observeJobRun(job, "aborted", seconds);
      return false;
    }
    if (outcome.ok) {
      const completed = await new Promise<boolean | null>((settle) => {
        finished.push({ entry, result: outcome.result, failures: 0, settle });
        scheduleExchange();
      });
      if (completed) observeJobRun(job, "completed", seconds);
      else if (completed === false) logger.warn({ jobId: job.id }, "job lost its claim before completing");
      return completed !== null;
    }
    await persist(job, async () => {
      const after = await failJob(pool, clock, fence, outcome.error, { final: outcome.final });
      if (after) observeJobRun(job, after.status === "failed" ? "failed" : "retried", seconds);
      logger.info(
        { jobId: job.id, jobType: job.jobType, status: after?.status, error: outcome.error },
        "job attempt failed",
      );
    });
    return false;
  }

  /** Writes an outcome, retrying through a database outage; gives up to the stale rule after a while. */
  async function persist(job: PlatformJob, write: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await write();
        return;
      } catch (err) {
        const delay = RETRY_DELAYS_MS[Math.min(attempt, RETRY_DELAYS_MS.length - 1)];
        if (attempt >= MAX_WRITE_RETRIES || closed) {
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
      repeat(exchange, options.pollIntervalMs);
      repeat(sweep, sweepEvery);
      await sweep();
      await exchange();
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
        abortJob(h);
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
      clearTimeout(retryTimer);
      abandon();
      await exchanging;
      if (exchangeClient) dropExchangeConnection(exchangeClient);
      await pool.end().catch(() => undefined);
    },
  };
}
