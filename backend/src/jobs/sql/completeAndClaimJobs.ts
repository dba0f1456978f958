import { randomId } from "@svc/common";
import { completeJob } from "./completeJob";
import {
  type Claim,
  inClaimOrder,
  JOB_COLUMNS,
  NOW,
  nextJobsSql,
  type Queryable,
  type QueueClock,
  toJob,
} from "./shared";

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
        set status = 'running', attempts = job.attempts + 1, progress = null, locked_at = ${NOW}, lock_token = $5,
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
