import { formatDate } from "@/components/ui";
import { labelOf, orderedEntries } from "@/components/ui/json-fields";
import type { PlatformJob } from "@/lib/platform-jobs/inputs";

/** The job type a person reads. */
export const JOB_TYPE_LABELS: Record<PlatformJob["jobType"], string> = {
  provision_managed_runtime: "Deploy agent",
  gateway_chat_completion: "Chat message",
  runtime_sync: "Runtime sync",
  retry_repair: "Repair",
};

export const JOB_STATUSES: readonly PlatformJob["status"][] = ["queued", "running", "completed", "failed"];

/** A failed attempt waits for its retry: the job is queued again with the attempt's error kept. */
export function isRetrying(job: PlatformJob): boolean {
  return job.status === "queued" && job.attempts > 0 && job.error !== null;
}

/** The status word for a badge: `retrying` for a job waiting for its next attempt. */
export function statusWord(job: PlatformJob): string {
  return isRetrying(job) ? "retrying" : job.status;
}

/** The name of one of the user's agents by id (`useAgentNames`); the id itself without one. */
export type AgentNameOf = (agentId: string) => string;

const idItself: AgentNameOf = (agentId) => agentId;

/** What the job was about, in a few words: a chat job's message, else its agent by name. */
export function subjectOf(job: PlatformJob, agentName: AgentNameOf = idItself): string {
  const message = job.payload.message;
  if (typeof message === "string") return message.length > 80 ? `${message.slice(0, 79)}…` : message;
  return job.agentId ? `agent ${agentName(job.agentId)}` : "";
}

/** One line saying where the job is: queued, running (attempt n of m), retry at …, completed, failed. */
export function progressOf(job: PlatformJob): string {
  switch (job.status) {
    case "queued":
      return isRetrying(job)
        ? `Attempt ${job.attempts} of ${job.maxAttempts} failed; retry at ${formatDate(job.runAt, { style: "time" })}`
        : "Queued, waiting for a worker";
    case "running":
      return `Running (attempt ${job.attempts} of ${job.maxAttempts})${job.progress ? `: ${job.progress}` : ""}`;
    case "completed":
      return `Completed${job.completedAt ? ` at ${formatDate(job.completedAt, { style: "time" })}` : ""}`;
    case "failed":
      return `Failed after ${job.attempts} ${job.attempts === 1 ? "attempt" : "attempts"}`;
  }
}

/**
 * A short line about the result or the error, for tables: a chat's reply, else the result's plain fields
 * in words ("Agent: Scout · Runtime version: 2026.4.11"), never its JSON.
 */
export function outcomeOf(job: PlatformJob, agentName: AgentNameOf = idItself): string {
  if (job.error && job.status !== "completed") return job.error;
  if (job.result) {
    const reply = job.result.reply;
    if (typeof reply === "string") return reply;
    return orderedEntries(job.result)
      .filter(([, value]) => ["string", "number", "boolean"].includes(typeof value))
      .map(([key, value]) => {
        const shown =
          key === "agentId"
            ? agentName(String(value))
            : typeof value === "boolean"
              ? value
                ? "yes"
                : "no"
              : String(value);
        return `${labelOf(key)}: ${shown}`;
      })
      .join(" · ");
  }
  return "";
}
