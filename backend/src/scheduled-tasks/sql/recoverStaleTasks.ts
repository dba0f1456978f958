import type { Queryable } from "./shared";

/** A task running longer than this was left by a worker that died. */
export const STALE_AFTER_MS = 10 * 60 * 1000;

export const STALE_WORKER_ERROR =
  "stale worker: the task was running for more than 10 minutes; recovered and queued to run again";

/**
 * Tasks `running` for more than `staleAfterMs` go back to `pending` with `next_run = now` and a
 * stale-worker `last_error` (their claim is void from then on). Returns their ids.
 */
export async function recoverStaleTasks(
  db: Queryable,
  now: Date,
  staleAfterMs = STALE_AFTER_MS,
): Promise<string[]> {
  const { rows } = await db.query({
    name: "scheduled_tasks_recover_stale",
    text: `update scheduled_tasks
      set status = 'pending', next_run = $1, last_error = $3, claimed_at = null, updated_at = $1
      where status = 'running' and claimed_at < $1::timestamptz - make_interval(secs => $2::double precision / 1000)
      returning id`,
    values: [now, staleAfterMs, STALE_WORKER_ERROR],
  });
  return rows.map((row) => row.id as string);
}
