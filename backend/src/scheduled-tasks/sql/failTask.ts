import { CLAIM_FENCE, type Queryable, type TaskClaim } from "./shared";

/** Backoff after a failed dispatch: min(30 x attempts, 300) seconds. */
export const BACKOFF_STEP_SECONDS = 30;
export const BACKOFF_MAX_SECONDS = 300;

export interface FailedTask {
  status: "pending" | "failed";
  attempts: number;
  nextRun: Date | null;
}

/**
 * A dispatch failed: `last_error` set, `attempts` + 1; below `max_attempts` back to `pending` with
 * `next_run = now + min(30 x attempts, 300) s`, at `max_attempts` `failed` (no next run, no automatic
 * retry). Null when the claim was lost.
 */
export async function failTask(
  db: Queryable,
  claim: TaskClaim,
  error: string,
  now: Date,
): Promise<FailedTask | null> {
  const { rows } = await db.query({
    name: "scheduled_tasks_fail",
    text: `update scheduled_tasks
      set attempts = attempts + 1,
          status = case when attempts + 1 >= max_attempts then 'failed' else 'pending' end,
          next_run = case when attempts + 1 >= max_attempts then null
            else $3::timestamptz + make_interval(secs => least(${BACKOFF_STEP_SECONDS} * (attempts + 1), ${BACKOFF_MAX_SECONDS})) end,
          last_error = $4, claimed_at = null, updated_at = $3
      where ${CLAIM_FENCE}
      returning status, attempts, next_run`,
    values: [claim.id, claim.claimedAt, now, error],
  });
  const row = rows[0];
  return row ? { status: row.status, attempts: row.attempts, nextRun: row.next_run } : null;
}
