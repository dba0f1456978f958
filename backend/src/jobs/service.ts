import { HttpError } from "@svc/common";
import type { PlatformJob } from "@svc/db/schema";
import { enqueueJob, getJob, jobMetrics, type Queryable, type QueueClock, type QueueMetrics } from "./queue";
import type { ChatJobInput, ProvisionJobInput } from "./schema";

export interface JobDeps {
  db: Queryable;
  clock: QueueClock;
}

/** Enqueues `provision_managed_runtime` (lane deploy, priority 100, 5 attempts); payload keeps only the spec's keys. */
export function enqueueProvisionJob(deps: JobDeps, input: ProvisionJobInput): Promise<PlatformJob> {
  return wrapEnqueue(
    enqueueJob(deps.db, deps.clock, {
      jobType: "provision_managed_runtime",
      userId: input.userId,
      agentId: input.agentId,
      payload: {
        userId: input.userId,
        agentId: input.agentId,
        plan: input.plan,
        aiProvider: input.aiProvider,
        agentType: input.agentType,
        autoProvision: input.autoProvision,
      },
    }),
  );
}

/**
 * Enqueues `gateway_chat_completion` (lane runtime_exec, priority 50, 3 attempts). No token enters the job;
 * `gatewayUrl` is kept for the spec's shape only: the worker addresses the agent's stored URL.
 */
export function enqueueChatJob(deps: JobDeps, input: ChatJobInput): Promise<PlatformJob> {
  return wrapEnqueue(
    enqueueJob(deps.db, deps.clock, {
      jobType: "gateway_chat_completion",
      userId: input.userId,
      agentId: input.agentId,
      payload: {
        userId: input.userId,
        agentId: input.agentId,
        gatewayUrl: input.gatewayUrl,
        message: input.message,
        systemPrompt: input.systemPrompt,
      },
    }),
  );
}

async function wrapEnqueue(enqueue: Promise<PlatformJob>): Promise<PlatformJob> {
  try {
    return await enqueue;
  } catch (err) {
    throw new HttpError(500, "enqueue_failed", "the job could not be enqueued", {
      cause: String((err as Error).message),
    });
  }
}

export async function findJob(deps: JobDeps, jobId: string): Promise<PlatformJob> {
  let job: PlatformJob | null;
  try {
    job = await getJob(deps.db, jobId);
  } catch (err) {
    throw new HttpError(500, "fetch_failed", "the job could not be read", {
      cause: String((err as Error).message),
    });
  }
  if (!job) throw new HttpError(404, "job_not_found", `no job ${jobId}`);
  return job;
}

export async function queueMetrics(deps: JobDeps): Promise<QueueMetrics> {
  try {
    return await jobMetrics(deps.db, deps.clock);
  } catch (err) {
    throw new HttpError(500, "metrics_failed", "the queue metrics could not be read", {
      cause: String((err as Error).message),
    });
  }
}
