import type { PlatformJob, PlatformJobLane, PlatformJobType } from "@svc/db/schema";
import type { Logger } from "pino";

export { type PlatformJobJson, toJobJson } from "@svc/db/json";

/** Lane, priority and attempts per job type. */
export const JOB_TYPES: Record<
  PlatformJobType,
  { lane: PlatformJobLane; priority: number; maxAttempts: number }
> = {
  provision_managed_runtime: { lane: "deploy", priority: 100, maxAttempts: 5 },
  gateway_chat_completion: { lane: "runtime_exec", priority: 50, maxAttempts: 3 },
  runtime_sync: { lane: "recovery", priority: 10, maxAttempts: 5 },
  retry_repair: { lane: "recovery", priority: 10, maxAttempts: 5 },
};

/** Backoff by attempt number: 30, 60, 90, 120, then 300 s. */
export function backoffSeconds(attempt: number): number {
  return attempt >= 5 ? 300 : Math.max(1, attempt) * 30;
}

/**
 * What a processor gets besides the job: a signal that fires when the worker gives the job up, a logger,
 * and `progress` to record the step it is at (the job's `progress`; a failure to record it is only logged).
 */
export interface ProcessorContext {
  signal: AbortSignal;
  logger: Logger;
  progress(step: string): Promise<void>;
}

/**
 * A failure that retrying cannot change (a missing configuration, a record that is gone): the worker fails
 * the job at once instead of scheduling the next attempt. Any other error is retried with the backoff.
 */
export class PermanentJobError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "PermanentJobError";
  }
}

/**
 * Runs one job; its return value is stored as the job's `result`; a throw is a failed attempt
 * (a PermanentJobError: the last one). The job is
 * the claimed row: `attempts` already counts this attempt, so `attempts >= maxAttempts` is the last one.
 */
export type JobProcessor = (job: PlatformJob, ctx: ProcessorContext) => Promise<Record<string, unknown>>;

export type ProcessorRegistry = Partial<Record<PlatformJobType, JobProcessor>>;
