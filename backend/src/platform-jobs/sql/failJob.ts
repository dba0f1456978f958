import type { PlatformJob } from "@svc/db/schema";
import { NOW, type Queryable, type QueueClock, toJob } from "./shared";

/**
 * Records a failed attempt: back to `queued` with `run_at` = now + backoff (30, 60, 90, 120, then 300 s by
 * attempt number), or `failed` with `completed_at` when the attempts are used up or the failure is `final`
 * (retrying cannot change it). `error` keeps the latest message. Returns the job after the change, or null
 * when the claim was lost.
 */
export async function failJob(
  db: Queryable,
  clock: QueueClock,
  claim: { id: string; lockToken: string },
  error: string,
  { final = false }: { final?: boolean } = {},
): Promise<PlatformJob | null> {
  const last = "($5::boolean or attempts >= max_attempts)";
  const { rows } = await db.query({
    name: "platform_jobs_fail",
    text: `update platform_jobs
      set status = case when ${last} then 'failed' else 'queued' end,
          error = $4,
          completed_at = case when ${last} then ${NOW} else null end,
          run_at = case when ${last} then run_at
                        else ${NOW} + make_interval(secs => case when attempts >= 5 then 300 else attempts * 30 end) end,
          locked_at = null, lock_token = null, updated_at = ${NOW}
      where id = $2 and lock_token = $3
      returning *`,
    values: [clock.now(), claim.id, claim.lockToken, error.slice(0, 4000), final],
  });
  return rows[0] ? toJob(rows[0]) : null;
}
