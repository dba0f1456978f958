import type { PlatformJob, PlatformJobStatus, PlatformJobType } from "@svc/db/schema";
import { type Queryable, toJob } from "./shared";

/** Where a page of a user's jobs ends: the last job's `created_at` in microseconds since the epoch, and its id. */
export interface UserJobPosition {
  createdAtMicros: bigint;
  id: string;
}

export interface UserJobFilter {
  userId: string;
  jobType?: PlatformJobType;
  status?: PlatformJobStatus;
  /** Only jobs after this position in the list (newest first). */
  after?: UserJobPosition;
  limit: number;
}

/**
 * One user's jobs, newest first (`created_at`, then `id`, both descending), from a keyset position: a page
 * stays the same whatever is enqueued meanwhile (new jobs sort before every cursor). Each row carries its
 * exact position (`created_at` in microseconds), so the next cursor loses nothing to JavaScript's
 * millisecond dates. Served by `platform_jobs_user_created_idx` (ties in `created_at` sorted by id on top):
 * the position bound is always there (the first page's is infinity), so even the prepared statement's generic
 * plan starts its index walk at the cursor instead of filtering every newer row.
 */
export async function listUserJobs(
  db: Queryable,
  filter: UserJobFilter,
): Promise<Array<{ job: PlatformJob; position: UserJobPosition }>> {
  const { rows } = await db.query({
    name: "platform_jobs_list_user",
    text: `select *, (extract(epoch from created_at) * 1000000)::bigint::text as created_at_micros
      from platform_jobs
      where user_id = $1
        and ($2::text is null or job_type = $2)
        and ($3::text is null or status = $3)
        and (created_at, id) < (coalesce(timestamptz 'epoch' + $4::bigint * interval '1 microsecond', 'infinity'),
                                coalesce($5::text, ''))
      order by created_at desc, id desc
      limit $6`,
    values: [
      filter.userId,
      filter.jobType ?? null,
      filter.status ?? null,
      filter.after ? filter.after.createdAtMicros.toString() : null,
      filter.after?.id ?? null,
      filter.limit,
    ],
  });
  return rows.map((row: Record<string, unknown>) => ({
    job: toJob(row),
    position: { createdAtMicros: BigInt(row.created_at_micros as string), id: row.id as string },
  }));
}
