import { CLAIM_FENCE, type Queryable, type TaskClaim } from "./shared";

/**
 * A dispatch answered 2xx: `last_run` set, `attempts` 0, `last_error` cleared, and the task goes back to
 * `pending` with `next_run` = `nextRun` (a disabled task stays `completed`). When the owner changed the
 * schedule meanwhile, the `next_run` they set for it is kept. False when the claim was lost.
 */
export async function completeTask(
  db: Queryable,
  claim: TaskClaim,
  result: { ranAt: Date; nextRun: Date | null; now: Date },
): Promise<boolean> {
  const { rowCount } = await db.query({
    name: "scheduled_tasks_complete",
    text: `update scheduled_tasks
      set status = case when enabled and $4::timestamptz is not null then 'pending' else 'completed' end,
          last_run = $3, attempts = 0, last_error = null, claimed_at = null, updated_at = $5,
          next_run = case when cron_schedule = $6 then $4::timestamptz else next_run end
      where ${CLAIM_FENCE}`,
    values: [claim.id, claim.claimedAt, result.ranAt, result.nextRun, result.now, claim.cronSchedule],
  });
  return rowCount === 1;
}
