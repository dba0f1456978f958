import type { PlatformJob, PlatformJobPayload } from "@svc/db/schema";
import { enqueueFailed, fetchFailed, jobNotFound, listFailed, metricsFailed } from "./errors";
import {
  type ChatJobInput,
  DEFAULT_JOB_LIST_LIMIT,
  encodeJobCursor,
  type JobListQuery,
  type ProvisionJobInput,
} from "./inputs";
import {
  enqueueJob,
  getJob,
  jobMetrics,
  listUserJobs,
  type NewJob,
  type Queryable,
  type QueueClock,
  type QueueMetrics,
} from "./sql";

export interface JobDeps {
  db: Queryable;
  clock: QueueClock;
}

/** Enqueues `provision_managed_runtime` (lane deploy, priority 100, 5 attempts); payload keeps only its own keys. */
export function enqueueProvisionJob(deps: JobDeps, input: ProvisionJobInput): Promise<PlatformJob> {
  return enqueueAgentJob(deps, "provision_managed_runtime", input, {
    plan: input.plan,
    aiProvider: input.aiProvider,
    agentType: input.agentType,
    autoProvision: input.autoProvision,
  });
}

/**
 * Enqueues `gateway_chat_completion` (lane runtime_exec, priority 50, 3 attempts). No token enters the job;
 * `gatewayUrl` is kept because callers send it, but the worker addresses the agent's stored URL.
 */
export function enqueueChatJob(deps: JobDeps, input: ChatJobInput): Promise<PlatformJob> {
  return enqueueAgentJob(deps, "gateway_chat_completion", input, {
    gatewayUrl: input.gatewayUrl,
    message: input.message,
    systemPrompt: input.systemPrompt,
  });
}

/** Enqueues a job of one user's agent; its payload starts with `userId` and `agentId`. */
async function enqueueAgentJob(
  deps: JobDeps,
  jobType: NewJob["jobType"],
  owner: { userId: string; agentId: string },
  payload: PlatformJobPayload,
): Promise<PlatformJob> {
  try {
    return await enqueueJob(deps.db, deps.clock, {
      jobType,
      userId: owner.userId,
      agentId: owner.agentId,
      payload: { userId: owner.userId, agentId: owner.agentId, ...payload },
    });
  } catch (err) {
    throw enqueueFailed(err);
  }
}

export async function findJob(deps: JobDeps, jobId: string): Promise<PlatformJob> {
  let job: PlatformJob | null;
  try {
    job = await getJob(deps.db, jobId);
  } catch (err) {
    throw fetchFailed(err);
  }
  if (!job) throw jobNotFound(jobId);
  return job;
}

/**
 * One page of a user's own jobs, newest first: `{jobs, nextCursor}` (`nextCursor` null on the last page).
 * Scoped to `userId` here, whatever the query says.
 */
export async function listJobsOfUser(
  deps: JobDeps,
  userId: string,
  query: JobListQuery,
): Promise<{ jobs: PlatformJob[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_JOB_LIST_LIMIT;
  let rows: Awaited<ReturnType<typeof listUserJobs>>;
  try {
    // One more than the page: whether a next page exists, without a count.
    rows = await listUserJobs(deps.db, {
      userId,
      jobType: query.type,
      status: query.status,
      after: query.cursor,
      limit: limit + 1,
    });
  } catch (err) {
    throw listFailed(err);
  }
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    jobs: page.map((row) => row.job),
    nextCursor: rows.length > limit && last ? encodeJobCursor(last.position) : null,
  };
}

export async function queueMetrics(deps: JobDeps): Promise<QueueMetrics> {
  try {
    return await jobMetrics(deps.db, deps.clock);
  } catch (err) {
    throw metricsFailed(err);
  }
}
