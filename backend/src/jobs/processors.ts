import type { PlatformJob, PlatformJobType } from "@svc/db/schema";
import type { Logger } from "pino";

/** What a processor gets besides the job: a signal that fires when the worker gives the job up, a logger. */
export interface ProcessorContext {
  signal: AbortSignal;
  logger: Logger;
}

/** Runs one job; its return value is stored as the job's `result`; a throw is a failed attempt. */
export type JobProcessor = (job: PlatformJob, ctx: ProcessorContext) => Promise<Record<string, unknown>>;

export type ProcessorRegistry = Partial<Record<PlatformJobType, JobProcessor>>;

/**
 * Job types whose work arrives with the runtime maintenance issue (#7): until then they fail with this
 * clear error on every attempt, never a fake success.
 */
export function notAvailableYet(jobType: PlatformJobType): JobProcessor {
  return async () => {
    throw new Error(
      `${jobType} is not available yet: agent runtime provisioning and repair are not built on this platform`,
    );
  };
}
