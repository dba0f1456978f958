import { NOW, type Queryable, type QueueClock } from "./shared";

/** Shutdown: claimed jobs that did not finish go back to `queued` now, their attempt not counted. */
export async function releaseJobs(
  db: Queryable,
  clock: QueueClock,
  claims: Array<{ id: string; lockToken: string }>,
): Promise<number> {
  if (claims.length === 0) return 0;
  const { rowCount } = await db.query({
    text: `update platform_jobs job
      set status = 'queued', attempts = greatest(job.attempts - 1, 0), run_at = ${NOW},
          locked_at = null, lock_token = null, updated_at = ${NOW}
      from unnest($2::text[], $3::text[]) as held(id, token)
      where job.id = held.id and job.lock_token = held.token`,
    values: [clock.now(), claims.map((c) => c.id), claims.map((c) => c.lockToken)],
  });
  if ((rowCount ?? 0) > 0) await db.query("select pg_notify('platform_jobs', 'released')");
  return rowCount ?? 0;
}
