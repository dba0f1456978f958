import type {
  PlatformJob,
  PlatformJobLane,
  PlatformJobPayload,
  PlatformJobStatus,
  PlatformJobType,
} from "@svc/db/schema";

/** A job as the API shows it (spec "Platform job"): ISO times, no lock token. */
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
    payload: job.payload,
    createdAt: job.createdAt.toISOString(),
    updatedAt: job.updatedAt.toISOString(),
  };
}

/** Spec: lane, priority and attempts per job type. */
export const JOB_TYPES: Record<
  PlatformJobType,
  { lane: PlatformJobLane; priority: number; maxAttempts: number }
> = {
  provision_managed_runtime: { lane: "deploy", priority: 100, maxAttempts: 5 },
  gateway_chat_completion: { lane: "runtime_exec", priority: 50, maxAttempts: 3 },
  runtime_sync: { lane: "recovery", priority: 10, maxAttempts: 5 },
  retry_repair: { lane: "recovery", priority: 10, maxAttempts: 5 },
};

/** Spec backoff by attempt number: 30, 60, 90, 120, then 300 s. */
export function backoffSeconds(attempt: number): number {
  return attempt >= 5 ? 300 : Math.max(1, attempt) * 30;
}
