import type { Queryable, TaskClaim } from "./shared";

export interface Completion {
  claim: TaskClaim;
  /** When it ran (the claim's time). */
  ranAt: Date;
  /** The schedule's next time, or null when there is none. */
  nextRun: Date | null;
}

/**
 * Dispatches that answered 2xx, in one statement: `last_run` set, `attempts` 0, `last_error` cleared, and
 * each task back to `pending` with its `next_run` (a disabled task stays `completed`). When the owner
 * changed the schedule meanwhile, the `next_run` they set for it is kept. Each row is fenced by its claim;
 * returns the ids written (a task whose claim was lost is not among them).
 */
export async function completeTasks(
  db: Queryable,
  completions: Completion[],
  now: Date,
): Promise<Set<string>> {
  if (completions.length === 0) return new Set();
  const { rows } = await db.query({
    name: "scheduled_tasks_complete",
    text: `update scheduled_tasks task
      set status = case when task.enabled and done.next_run is not null then 'pending' else 'completed' end,
          last_run = done.ran_at, attempts = 0, last_error = null, claimed_at = null, updated_at = $1,
          next_run = case when task.cron_schedule = done.cron_schedule then done.next_run else task.next_run end
      from unnest($2::text[], $3::timestamptz[], $4::timestamptz[], $5::timestamptz[], $6::text[])
        as done(id, claimed_at, ran_at, next_run, cron_schedule)
      where task.id = done.id and task.status = 'running' and task.claimed_at = done.claimed_at
      returning task.id`,
    values: [
      now,
      completions.map((c) => c.claim.id),
      completions.map((c) => c.claim.claimedAt),
      completions.map((c) => c.ranAt),
      completions.map((c) => c.nextRun),
      completions.map((c) => c.claim.cronSchedule),
    ],
  });
  return new Set(rows.map((row) => row.id as string));
}
