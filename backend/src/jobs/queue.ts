/**
 * The platform job queue's SQL, one function per operation (graphile-worker's shape). Every timestamp comes
 * from one clock: the database's `now()`, or — in tests — the instant a QueueClock gives, never a mix.
 * Completion, failure and release are fenced by the claim's lock token: a worker whose job was requeued
 * (stale rule) and claimed by someone else can no longer change it. A token exists only while its job is
 * `running` (every way out of `running` clears it), so `id = … and lock_token = …` is the whole fence and
 * the statement stays a primary-key lookup.
 */
import { randomId, systemClock, timestampedId } from "@svc/common";
import type { PlatformJob, PlatformJobPayload, PlatformJobType } from "@svc/db/schema";
import type pg from "pg";
import { JOB_TYPES } from "./types";

export type Queryable = Pick<pg.Pool, "query">;

/** The queue's clock: null = the database's `now()` (production); a Date = that instant (tests). */
export interface QueueClock {
  now(): Date | null;
}

export const databaseClock: QueueClock = { now: () => null };

const NOW = "coalesce($1::timestamptz, now())";

/** Row (snake_case) → PlatformJob. */
function toJob(row: Record<string, unknown>): PlatformJob {
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
    payload: row.payload as PlatformJobPayload,
    createdAt: row.created_at as Date,
    updatedAt: row.updated_at as Date,
  };
}

/** Every column of platform_jobs (complete-and-claim lists them so its two branches line up). */
const JOB_COLUMNS = [
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
  "payload",
  "created_at",
  "updated_at",
];

export interface NewJob {
  jobType: PlatformJobType;
  userId?: string | null;
  agentId?: string | null;
  payload: PlatformJobPayload;
}

/** Adds a queued job (lane, priority and attempts from its type) and wakes idle workers (NOTIFY on commit). */
export async function enqueueJob(db: Queryable, clock: QueueClock, job: NewJob): Promise<PlatformJob> {
  const type = JOB_TYPES[job.jobType];
  const { rows } = await db.query({
    name: "platform_jobs_enqueue",
    text: `with job as (
        insert into platform_jobs (id, user_id, agent_id, lane, job_type, status, priority, attempts, max_attempts,
                                   run_at, payload, created_at, updated_at)
        values ($2, $3, $4, $5, $6, 'queued', $7, 0, $8, ${NOW}, $9, ${NOW}, ${NOW})
        returning *)
      select job.*, pg_notify('platform_jobs', job.lane) from job`,
    values: [
      clock.now(),
      timestampedId("job", clock.now() ?? systemClock.now()),
      job.userId ?? null,
      job.agentId ?? null,
      type.lane,
      job.jobType,
      type.priority,
      type.maxAttempts,
      job.payload,
    ],
  });
  return toJob(rows[0]);
}

/**
 * Planner settings for the worker's own sessions. A prepared statement's cached plan is made once, from the
 * statistics of that moment; planned against an empty (analyzed) table, the claim would keep walking every
 * row once the queue fills up (measured: 13–22 ms per claim at 20,000 queued jobs instead of 0.5 ms). With
 * sequential scans, bitmap scans and sorts disabled, every queue statement is an index walk — the claim the
 * ordered scan of `platform_jobs_claim_idx`, everything else the primary key or a partial index — whatever
 * the statistics say. Only the worker's sessions carry them (a startup parameter; behind PgBouncer use
 * session pooling for the worker).
 */
export const QUEUE_SESSION_OPTIONS = "-c enable_seqscan=off -c enable_bitmapscan=off -c enable_sort=off";

/**
 * The claim's selection: queued, `run_at` reached, highest priority first then oldest `run_at`, `FOR UPDATE
 * SKIP LOCKED`, served by the partial index on queued jobs. Claims are prepared statements (planned once per
 * connection); the limit is written into the text (one statement per batch size) and the lane filter exists
 * only in the lanes variant, so the cached plan is the ordered index scan (a `LIMIT $n` or an
 * `$n is null or …` filter lets a generic plan degrade to sorting every queued job). The rows it picks are
 * then updated by `id = any(array(…))`, a primary-key lookup, never a join the planner could turn around.
 */
function nextJobsSql(limit: number, lanesParam: string | null): string {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new Error(`claim limit must be a positive integer: ${limit}`);
  return `select id from platform_jobs
        where status = 'queued' and run_at <= ${NOW}${lanesParam ? ` and lane = any(${lanesParam}::text[])` : ""}
        order by priority desc, run_at
        limit ${limit}
        for update skip locked`;
}

export interface Claim {
  job: PlatformJob;
  lockToken: string;
}

/**
 * Claims up to `limit` eligible jobs in one statement: queued, `run_at` reached, highest priority first then
 * oldest `run_at`, `FOR UPDATE SKIP LOCKED` (served by the partial index on queued jobs). Each claim counts
 * an attempt, sets `locked_at`, a fresh lock token, and `started_at` on the first attempt only.
 */
export async function claimJobs(
  db: Queryable,
  clock: QueueClock,
  limit: number,
  lanes: readonly string[] | null = null,
): Promise<Claim[]> {
  if (limit <= 0) return [];
  const lockToken = randomId(16);
  const filtered = lanes !== null && lanes.length > 0;
  const { rows } = await db.query({
    name: `platform_jobs_claim_${limit}${filtered ? "_lanes" : ""}`,
    text: `with next as (${nextJobsSql(limit, filtered ? "$3" : null)})
      update platform_jobs job
      set status = 'running', attempts = job.attempts + 1, locked_at = ${NOW}, lock_token = $2,
          started_at = coalesce(job.started_at, ${NOW}), updated_at = ${NOW}
      where job.id = any(array(select id from next))
      returning job.*`,
    values: filtered ? [clock.now(), lockToken, lanes] : [clock.now(), lockToken],
  });
  return inClaimOrder(rows.map((row) => ({ job: toJob(row), lockToken })));
}

/** Claims in the order they were chosen: priority first, then the oldest `run_at`. */
function inClaimOrder(claims: Claim[]): Claim[] {
  return claims.sort(
    (a, b) => b.job.priority - a.job.priority || a.job.runAt.getTime() - b.job.runAt.getTime(),
  );
}

/**
 * Completes a finished job and claims up to `limit` new ones in a single statement: a busy worker pays
 * one round trip (and one transaction) per job instead of two. The claim part is exactly `claimJobs`'.
 */
export async function completeAndClaimJobs(
  db: Queryable,
  clock: QueueClock,
  done: { id: string; lockToken: string; result: Record<string, unknown> },
  limit: number,
  lanes: readonly string[] | null = null,
): Promise<{ completed: Set<string>; claims: Claim[] }> {
  if (limit <= 0) {
    const completed = await completeJob(db, clock, done, done.result);
    return { completed: new Set(completed ? [done.id] : []), claims: [] };
  }
  const lockToken = randomId(16);
  const filtered = lanes !== null && lanes.length > 0;
  const { rows } = await db.query({
    name: `platform_jobs_complete_claim_${limit}${filtered ? "_lanes" : ""}`,
    text: `with done as (
        update platform_jobs job
        set status = 'completed', result = $4, completed_at = ${NOW}, locked_at = null, lock_token = null,
            updated_at = ${NOW}
        where job.id = $2 and job.lock_token = $3
        returning job.id),
      next as (${nextJobsSql(limit, filtered ? "$6" : null)}),
      claimed as (
        update platform_jobs job
        set status = 'running', attempts = job.attempts + 1, locked_at = ${NOW}, lock_token = $5,
            started_at = coalesce(job.started_at, ${NOW}), updated_at = ${NOW}
        where job.id = any(array(select id from next))
        returning ${JOB_COLUMNS.map((column) => `job.${column}`).join(", ")})
      select null::text as done_id, claimed.* from claimed
      union all
      select done.id, ${JOB_COLUMNS.map(() => "null").join(", ")} from done`,
    values: [clock.now(), done.id, done.lockToken, done.result, lockToken, ...(filtered ? [lanes] : [])],
  });
  const completed = new Set<string>();
  const claims: Claim[] = [];
  for (const row of rows) {
    if (row.done_id) completed.add(row.done_id as string);
    else claims.push({ job: toJob(row), lockToken });
  }
  return { completed, claims: inClaimOrder(claims) };
}

/** Marks a claimed job completed with its result. False when the claim was lost (fenced out). */
export async function completeJob(
  db: Queryable,
  clock: QueueClock,
  claim: { id: string; lockToken: string },
  result: Record<string, unknown>,
): Promise<boolean> {
  const { rowCount } = await db.query({
    name: "platform_jobs_complete",
    text: `update platform_jobs
      set status = 'completed', result = $4, completed_at = ${NOW}, locked_at = null, lock_token = null, updated_at = ${NOW}
      where id = $2 and lock_token = $3`,
    values: [clock.now(), claim.id, claim.lockToken, result],
  });
  return rowCount === 1;
}

/**
 * Heartbeat of a running job: moves `locked_at` to now while the claim holds, so the stale rule only
 * requeues jobs whose worker stopped refreshing (died). One primary-key update per running job; neither
 * `updated_at` nor anything else changes. False when the claim was lost (requeued, or claimed anew).
 */
export async function refreshJobLock(
  db: Queryable,
  clock: QueueClock,
  claim: { id: string; lockToken: string },
): Promise<boolean> {
  const { rowCount } = await db.query({
    name: "platform_jobs_refresh_lock",
    text: `update platform_jobs set locked_at = ${NOW} where id = $2 and lock_token = $3`,
    values: [clock.now(), claim.id, claim.lockToken],
  });
  return rowCount === 1;
}

/**
 * Records a failed attempt: back to `queued` with `run_at` = now + backoff (30, 60, 90, 120, then 300 s by
 * attempt number), or `failed` with `completed_at` when the attempts are used up. `error` keeps the latest
 * message. Returns the job after the change, or null when the claim was lost.
 */
export async function failJob(
  db: Queryable,
  clock: QueueClock,
  claim: { id: string; lockToken: string },
  error: string,
): Promise<PlatformJob | null> {
  const { rows } = await db.query({
    name: "platform_jobs_fail",
    text: `update platform_jobs
      set status = case when attempts >= max_attempts then 'failed' else 'queued' end,
          error = $4,
          completed_at = case when attempts >= max_attempts then ${NOW} else null end,
          run_at = case when attempts >= max_attempts then run_at
                        else ${NOW} + make_interval(secs => case when attempts >= 5 then 300 else attempts * 30 end) end,
          locked_at = null, lock_token = null, updated_at = ${NOW}
      where id = $2 and lock_token = $3
      returning *`,
    values: [clock.now(), claim.id, claim.lockToken, error.slice(0, 4000)],
  });
  return rows[0] ? toJob(rows[0]) : null;
}

/**
 * Stale rule: a running job whose lock was not refreshed for longer than `staleAfterMs` lost its worker; it
 * goes back to `queued` (or to `failed` when that was its last attempt) and its old lock token stops
 * working. Returns the ids changed.
 */
export async function requeueStaleJobs(
  db: Queryable,
  clock: QueueClock,
  staleAfterMs: number,
): Promise<string[]> {
  const { rows } = await db.query({
    name: "platform_jobs_requeue_stale",
    text: `update platform_jobs
      set status = case when attempts >= max_attempts then 'failed' else 'queued' end,
          error = 'worker lost: running for more than ' || ($2::bigint / 1000) || ' s',
          completed_at = case when attempts >= max_attempts then ${NOW} else null end,
          run_at = ${NOW}, locked_at = null, lock_token = null, updated_at = ${NOW}
      where status = 'running' and locked_at < ${NOW} - make_interval(secs => $2::bigint / 1000.0)
      returning id, status, lane`,
    values: [clock.now(), staleAfterMs],
  });
  if (rows.some((r) => r.status === "queued"))
    await db.query("select pg_notify('platform_jobs', 'requeued')");
  return rows.map((r) => r.id as string);
}

/** Shutdown: claimed jobs that did not finish go back to `queued` now, their attempt not counted. */
export async function releaseJobs(
  db: Queryable,
  clock: QueueClock,
  claims: Array<{ id: string; lockToken: string }>,
): Promise<number> {
  if (claims.length === 0) return 0;
  const { rowCount } = await db.query({
    text: `update platform_jobs job
      set status = 'queued', attempts = greatest(job.attempts - 1, 0), run_at = ${NOW},
          locked_at = null, lock_token = null, updated_at = ${NOW}
      from unnest($2::text[], $3::text[]) as held(id, token)
      where job.id = held.id and job.lock_token = held.token`,
    values: [clock.now(), claims.map((c) => c.id), claims.map((c) => c.lockToken)],
  });
  if ((rowCount ?? 0) > 0) await db.query("select pg_notify('platform_jobs', 'released')");
  return rowCount ?? 0;
}

/** One job by id. */
export async function getJob(db: Queryable, id: string): Promise<PlatformJob | null> {
  const { rows } = await db.query({
    name: "platform_jobs_get",
    text: "select * from platform_jobs where id = $1",
    values: [id],
  });
  return rows[0] ? toJob(rows[0]) : null;
}

export interface QueueMetrics {
  counts: Array<{ lane: string; status: string; count: number }>;
  oldestQueuedAgeSeconds: number;
}

/** Counts per lane and status, and the age of the oldest queued job (0 when none is queued). */
export async function jobMetrics(db: Queryable, clock: QueueClock): Promise<QueueMetrics> {
  const counts = await db.query(
    "select lane, status, count(*)::int as count from platform_jobs group by lane, status order by lane, status",
  );
  const oldest = await db.query(
    `select coalesce(floor(extract(epoch from (${NOW} - min(created_at)))), 0)::int as age
     from platform_jobs where status = 'queued'`,
    [clock.now()],
  );
  return {
    counts: counts.rows.map((r) => ({ lane: r.lane, status: r.status, count: r.count })),
    oldestQueuedAgeSeconds: Math.max(0, oldest.rows[0]?.age ?? 0),
  };
}
