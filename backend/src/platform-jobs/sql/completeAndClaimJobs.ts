import { claimJobs } from "./claimJobs";
import {
  type Claim,
  claimNextSql,
  inClaimOrder,
  JOB_COLUMNS,
  NOW,
  newLockToken,
  nextJobsSql,
  type Queryable,
  type QueueClock,
  toJob,
} from "./shared";

/** The finished jobs' rows, by `id = any($2)`; each takes its token and result at its position in `$2`. */
const COMPLETE = `update platform_jobs job
        set status = 'completed', result = $4::jsonb -> (array_position($2::text[], job.id) - 1),
            completed_at = ${NOW}, locked_at = null, lock_token = null, updated_at = ${NOW}
        where job.id = any($2::text[]) and job.lock_token = ($3::text[])[array_position($2::text[], job.id)]
        returning job.id`;

/** Statement texts by name (built once: a busy worker sends them thousands of times a second). */
const texts = new Map<string, string>();

function statementText(name: string, limit: number, filtered: boolean): string {
  let text = texts.get(name);
  if (text === undefined) {
    text =
      limit > 0
        ? `with done as (${COMPLETE}),
      next as (${nextJobsSql(limit, filtered ? "$6" : null)}),
      claimed as (${claimNextSql("$5", JOB_COLUMNS.map((column) => `job.${column}`).join(", "))})
      select null::text as done_id, claimed.* from claimed
      union all
      select done.id, ${JOB_COLUMNS.map(() => "null").join(", ")} from done`
        : `with done as (${COMPLETE}) select id as done_id from done`;
    texts.set(name, text);
  }
  return text;
}

/** A finished job to complete: its claim's fence and the processor's result. */
export interface FinishedJob {
  id: string;
  lockToken: string;
  result: Record<string, unknown>;
}

/**
 * Completes finished jobs and claims up to `limit` new ones in a single statement: a busy worker pays one
 * round trip (and one transaction) per batch of jobs instead of two per job. Each completion is fenced by
 * its own lock token; the claim part is exactly `claimJobs`'. The finished jobs are found by
 * `id = any($2)` (a primary-key lookup, like the claimed ones) and each picks its token and result from the
 * arrays by its position in `$2`, so there is no join the planner could turn around.
 */
export async function completeAndClaimJobs(
  db: Queryable,
  clock: QueueClock,
  done: readonly FinishedJob[],
  limit: number,
  lanes: readonly string[] | null = null,
): Promise<{ completed: Set<string>; claims: Claim[] }> {
  if (done.length === 0) return { completed: new Set(), claims: await claimJobs(db, clock, limit, lanes) };
  const claiming = limit > 0;
  const lockToken = newLockToken();
  const filtered = claiming && lanes !== null && lanes.length > 0;
  const name = claiming
    ? `platform_jobs_complete_claim_${limit}${filtered ? "_lanes" : ""}`
    : "platform_jobs_complete_batch";
  const values: unknown[] = [
    clock.now(),
    done.map((d) => d.id),
    done.map((d) => d.lockToken),
    JSON.stringify(done.map((d) => d.result)),
  ];
  if (claiming) values.push(lockToken, ...(filtered ? [lanes] : []));
  const { rows } = await db.query({ name, text: statementText(name, limit, filtered), values });
  const completed = new Set<string>();
  const claims: Claim[] = [];
  for (const row of rows) {
    if (row.done_id) completed.add(row.done_id as string);
    else claims.push({ job: toJob(row), lockToken });
  }
  return { completed, claims: inClaimOrder(claims) };
}
