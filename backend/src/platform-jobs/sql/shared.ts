/**
 * What every statement of the platform job queue shares; each operation is its own file beside this one
 * (graphile-worker's `src/sql/` shape). Every timestamp comes from one clock: the database's `now()`, or —
 * in tests — the instant a QueueClock gives, never a mix. Completion, failure and release are fenced by the
 * claim's lock token: a worker whose job was requeued (stale rule) and claimed by someone else can no longer
 * change it. A token exists only while its job is `running` (every way out of `running` clears it), so
 * `id = … and lock_token = …` is the whole fence and the statement stays a primary-key lookup.
 */
import { randomUUID } from "node:crypto";
import type { PlatformJob, PlatformJobPayload } from "@svc/db/schema";
import pg from "pg";

export type Queryable = Pick<pg.Pool, "query">;

/** The queue's clock: null = the database's `now()` (production); a Date = that instant (tests). */
export interface QueueClock {
  now(): Date | null;
}

export const databaseClock: QueueClock = { now: () => null };

export const NOW = "coalesce($1::timestamptz, now())";

/** Row (snake_case) → PlatformJob. */
export function toJob(row: Record<string, unknown>): PlatformJob {
  return {
    id: row.id as string,
    userId: row.user_id as string | null,
    agentId: row.agent_id as string | null,
    lane: row.lane as PlatformJob["lane"],
    jobType: row.job_type as PlatformJob["jobType"],
    status: row.status as PlatformJob["status"],
    priority: row.priority as number,
    attempts: row.attempts as number,
    maxAttempts: row.max_attempts as number,
    runAt: row.run_at as Date,
    lockedAt: row.locked_at as Date | null,
    lockToken: row.lock_token as string | null,
    startedAt: row.started_at as Date | null,
    completedAt: row.completed_at as Date | null,
    error: row.error as string | null,
    result: row.result as Record<string, unknown> | null,
    progress: row.progress as string | null,
    payload: row.payload as PlatformJobPayload,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** Every column of platform_jobs (complete-and-claim lists them so its two branches line up). */
export const JOB_COLUMNS = [
  "id",
  "user_id",
  "agent_id",
  "lane",
  "job_type",
  "status",
  "priority",
  "attempts",
  "max_attempts",
  "run_at",
  "locked_at",
  "lock_token",
  "started_at",
  "completed_at",
  "error",
  "result",
  "progress",
  "payload",
  "created_at",
  "updated_at",
];

/**
 * Planner settings for the worker's own sessions. A prepared statement's cached plan is made once, from the
 * statistics of that moment; planned against an empty (analyzed) table, the claim would keep walking every
 * row once the queue fills up (measured: 13–22 ms per claim at 20,000 queued jobs instead of 0.5 ms). With
 * sequential scans, bitmap scans and sorts disabled, every queue statement is an index walk — the claim the
 * ordered scan of `platform_jobs_claim_idx`, everything else the primary key or a partial index — whatever
 * the statistics say. And the cached plan is always the one used (`force_generic_plan`): left to choose,
 * PostgreSQL planned the batched complete-and-claim anew on every execution (50 custom plans out of 50,
 * 0.31 ms of planning beside 0.33 ms of execution for four jobs; a third of the database's CPU per job).
 * Only the worker's sessions carry them (a startup parameter; behind PgBouncer use session pooling for
 * the worker).
 */
export const QUEUE_SESSION_OPTIONS =
  "-c enable_seqscan=off -c enable_bitmapscan=off -c enable_sort=off -c plan_cache_mode=force_generic_plan" +
  " -c TimeZone=UTC";

const parseTimestamptz = pg.types.getTypeParser(pg.types.builtins.TIMESTAMPTZ, "text");

/** The number written by the digits of `text` from `start` to `end` (exclusive); NaN at a non-digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i++) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return Number.NaN;
    value = value * 10 + digit;
  }
  return value;
}

/**
 * A timestamp as a UTC session prints it (`2026-11-21 10:00:00.123456+00`, what the worker's sessions are
 * set to), read digit by digit instead of by pg's general parser (a regular expression and its match per
 * column; a claimed job has five): the same Date, the fraction turned into milliseconds by the same
 * arithmetic. Any other shape (another zone, BC, infinity, a year before 100) goes to pg's parser.
 */
export function parseUtcTimestamp(text: string): Date {
  const n = text.length;
  const fraction = n > 22 ? digits(text, 20, n - 3) : 0;
  const year = digits(text, 0, 4);
  if (
    n < 22 ||
    n > 29 ||
    !text.endsWith("+00") ||
    text[4] !== "-" ||
    text[10] !== " " ||
    (n > 22 && text[19] !== ".") ||
    !(year >= 100) ||
    Number.isNaN(fraction)
  )
    return parseTimestamptz(text) as Date;
  const time = Date.UTC(
    year,
    digits(text, 5, 7) - 1,
    digits(text, 8, 10),
    digits(text, 11, 13),
    digits(text, 14, 16),
    digits(text, 17, 19),
    n > 22 ? 1000 * (fraction / 10 ** (n - 23)) : 0,
  );
  return Number.isNaN(time) ? (parseTimestamptz(text) as Date) : new Date(time);
}

/** Type parsers of the worker's pool: pg's own, but for timestamps (see `parseUtcTimestamp`). */
export const QUEUE_TYPES = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === pg.types.builtins.TIMESTAMPTZ && format !== "binary"
      ? parseUtcTimestamp
      : pg.types.getTypeParser(oid, format ?? "text")) as typeof pg.types.getTypeParser,
};

/**
 * The claim's selection: queued, `run_at` reached, highest priority first then oldest `run_at`, `FOR UPDATE
 * SKIP LOCKED`, served by the partial index on queued jobs. Claims are prepared statements (planned once per
 * connection); the limit is written into the text (one statement per batch size) and the lane filter exists
 * only in the lanes variant, so the cached plan is the ordered index scan (a `LIMIT $n` or an
 * `$n is null or …` filter lets a generic plan degrade to sorting every queued job). The rows it picks are
 * then updated by `id = any(array(…))`, a primary-key lookup, never a join the planner could turn around.
 */
export function nextJobsSql(limit: number, lanesParam: string | null): string {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new Error(`claim limit must be a positive integer: ${limit}`);
  return `select id from platform_jobs
        where status = 'queued' and run_at <= ${NOW}${lanesParam ? ` and lane = any(${lanesParam}::text[])` : ""}
        order by priority desc, run_at
        limit ${limit}
        for update skip locked`;
}

/**
 * The claim of the jobs that `next` (nextJobsSql) chose: each counts an attempt and takes `locked_at`, the
 * lock token `lockTokenParam`, and `started_at` on its first attempt only.
 */
export function claimNextSql(lockTokenParam: string, returning: string): string {
  return `update platform_jobs job
        set status = 'running', attempts = job.attempts + 1, progress = null, locked_at = ${NOW}, lock_token = ${lockTokenParam},
            started_at = coalesce(job.started_at, ${NOW}), updated_at = ${NOW}
        where job.id = any(array(select id from next))
        returning ${returning}`;
}

/** A claim's lock token (from node's batched random source: a claim is made thousands of times a second). */
export function newLockToken(): string {
  return randomUUID();
}

export interface Claim {
  job: PlatformJob;
  lockToken: string;
}

/** Claims in the order they were chosen: priority first, then the oldest `run_at`. */
export function inClaimOrder(claims: Claim[]): Claim[] {
  return claims.sort(
    (a, b) => b.job.priority - a.job.priority || a.job.runAt.getTime() - b.job.runAt.getTime(),
  );
}
