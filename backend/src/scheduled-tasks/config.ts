import { flag, positiveInt } from "@svc/common";

/** The task scheduler's variables (spread into the backend's envSchema). */
export const schedulerEnv = {
  /** Run the task scheduler in this backend process (every process may: claims are exclusive). */
  SCHEDULER_ENABLED: flag(true),
  /** Longest wait between the end of one scheduler tick and the start of the next (30 s). */
  SCHEDULER_POLL_MS: positiveInt(30_000),
};
