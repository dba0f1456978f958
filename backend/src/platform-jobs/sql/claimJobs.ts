import {
  type Claim,
  claimNextSql,
  inClaimOrder,
  newLockToken,
  nextJobsSql,
  type Queryable,
  type QueueClock,
  toJob,
} from "./shared";

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
  const lockToken = newLockToken();
  const filtered = lanes !== null && lanes.length > 0;
  const { rows } = await db.query({
    name: `platform_jobs_claim_${limit}${filtered ? "_lanes" : ""}`,
    text: `with next as (${nextJobsSql(limit, filtered ? "$3" : null)}) ${claimNextSql("$2", "job.*")}`,
    values: filtered ? [clock.now(), lockToken, lanes] : [clock.now(), lockToken],
  });
  return inClaimOrder(rows.map((row) => ({ job: toJob(row), lockToken })));
}
