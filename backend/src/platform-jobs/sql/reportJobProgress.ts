import { NOW, type Queryable, type QueueClock } from "./shared";

/**
 * A running job tells where it is (`progress`, shown by the dashboard while the job runs); only while its
 * claim holds. False when the claim was lost.
 */
export async function reportJobProgress(
  db: Queryable,
  clock: QueueClock,
  claim: { id: string; lockToken: string },
  progress: string,
): Promise<boolean> {
  const { rowCount } = await db.query({
    name: "platform_jobs_report_progress",
    text: `update platform_jobs set progress = $4, updated_at = ${NOW} where id = $2 and lock_token = $3`,
    values: [clock.now(), claim.id, claim.lockToken, progress],
  });
  return rowCount === 1;
}
