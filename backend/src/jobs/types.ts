import type { PlatformJobLane, PlatformJobType } from "@svc/db/schema";

export { type PlatformJobJson, toJobJson } from "@svc/db/json";

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
