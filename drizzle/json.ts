/** API shapes of stored rows, shared by every service that answers with them. */
import type {
  PlatformJob,
  PlatformJobLane,
  PlatformJobPayload,
  PlatformJobStatus,
  PlatformJobType,
} from "./schema/index";

/** A job as the API shows it: ISO times, no lock token. */
export interface PlatformJobJson {
  id: string;
  userId: string | null;
  agentId: string | null;
  lane: PlatformJobLane;
  jobType: PlatformJobType;
  status: PlatformJobStatus;
  priority: number;
  attempts: number;
  maxAttempts: number;
  runAt: string;
  lockedAt: string | null;
  startedAt: string | null;
  completedAt: string | null;
  error: string | null;
  result: Record<string, unknown> | null;
  /** The step the job last reported (see the column). */
  progress: string | null;
  payload: PlatformJobPayload;
  createdAt: string;
  updatedAt: string;
}

export function toJobJson(job: PlatformJob): PlatformJobJson {
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  return {
    id: job.id,
    userId: job.userId,
    agentId: job.agentId,
    lane: job.lane,
    jobType: job.jobType,
    status: job.status,
    priority: job.priority,
    attempts: job.attempts,
    maxAttempts: job.maxAttempts,
    runAt: job.runAt.toISOString(),
    lockedAt: iso(job.lockedAt),
    startedAt: iso(job.startedAt),
    completedAt: iso(job.completedAt),
    error: job.error,
    result: job.result ?? null,
    progress: job.progress ?? null,
    payload: job.payload,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}
