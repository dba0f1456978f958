import type { PlatformJob, PlatformJobType } from "@svc/db/schema";
import type { Logger } from "pino";

/** What a processor gets besides the job: a signal that fires when the worker gives the job up, a logger. */
export interface ProcessorContext {
  signal: AbortSignal;
  logger: Logger;
}

/**
 * Runs one job; its return value is stored as the job's `result`; a throw is a failed attempt. The job is
 * the claimed row: `attempts` already counts this attempt, so `attempts >= maxAttempts` is the last one.
 */
export type JobProcessor = (job: PlatformJob, ctx: ProcessorContext) => Promise<Record<string, unknown>>;

export type ProcessorRegistry = Partial<Record<PlatformJobType, JobProcessor>>;
