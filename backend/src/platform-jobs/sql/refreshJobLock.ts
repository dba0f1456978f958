import { NOW, type Queryable, type QueueClock } from "./shared";

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
