import { NOW, type Queryable, type QueueClock } from "./shared";

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
