import { systemClock, timestampedId } from "@svc/common";
import type { PlatformJob, PlatformJobPayload, PlatformJobType } from "@svc/db/schema";
import { JOB_TYPES } from "../types";
import { NOW, type Queryable, type QueueClock, toJob } from "./shared";

export interface NewJob {
  jobType: PlatformJobType;
  userId?: string | null;
  agentId?: string | null;
  payload: PlatformJobPayload;
}

/** Adds a queued job (lane, priority and attempts from its type) and wakes idle workers (NOTIFY on commit). */
export async function enqueueJob(db: Queryable, clock: QueueClock, job: NewJob): Promise<PlatformJob> {
  const type = JOB_TYPES[job.jobType];
  const { rows } = await db.query({
    name: "platform_jobs_enqueue",
    text: `with job as (
        insert into platform_jobs (id, user_id, agent_id, lane, job_type, status, priority, attempts, max_attempts,
                                   run_at, payload, created_at, updated_at)
        values ($2, $3, $4, $5, $6, 'queued', $7, 0, $8, ${NOW}, $9, ${NOW}, ${NOW})
        returning *)
      select job.*, pg_notify('platform_jobs', job.lane) from job`,
    values: [
      clock.now(),
      timestampedId("job", clock.now() ?? systemClock.now()),
      job.userId ?? null,
      job.agentId ?? null,
      type.lane,
      job.jobType,
      type.priority,
      type.maxAttempts,
      job.payload,
    ],
  });
  return toJob(rows[0]);
}
