import { NOW, type Queryable, type QueueClock } from "./shared";

/**
 * Stale rule: a running job whose lock was not refreshed for longer than `staleAfterMs` lost its worker; it
 * goes back to `queued` (or to `failed` when that was its last attempt) and its old lock token stops
 * working. Returns the ids changed.
 */
export async function requeueStaleJobs(
  db: Queryable,
  clock: QueueClock,
  staleAfterMs: number,
): Promise<string[]> {
  const { rows } = await db.query({
    name: "platform_jobs_requeue_stale",
    text: `update platform_jobs
      set status = case when attempts >= max_attempts then 'failed' else 'queued' end,
          error = 'worker lost: running for more than ' || ($2::bigint / 1000) || ' s',
          completed_at = case when attempts >= max_attempts then ${NOW} else null end,
          run_at = ${NOW}, locked_at = null, lock_token = null, updated_at = ${NOW}
      where status = 'running' and locked_at < ${NOW} - make_interval(secs => $2::bigint / 1000.0)
      returning id, status, lane`,
    values: [clock.now(), staleAfterMs],
  });
  if (rows.some((r) => r.status === "queued"))
    await db.query("select pg_notify('platform_jobs', 'requeued')");
  return rows.map((r) => r.id as string);
}
