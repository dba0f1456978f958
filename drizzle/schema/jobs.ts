import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt } from "./columns";

export const platformJobLanes = ["deploy", "runtime_exec", "recovery"] as const;
export type PlatformJobLane = (typeof platformJobLanes)[number];

export const platformJobTypes = [
  "provision_managed_runtime",
  "gateway_chat_completion",
  "runtime_sync",
  "retry_repair",
] as const;
export type PlatformJobType = (typeof platformJobTypes)[number];

export const platformJobStatuses = ["queued", "running", "completed", "failed"] as const;
export type PlatformJobStatus = (typeof platformJobStatuses)[number];

/** Sanitized job input; chat jobs add their own fields. */
export type PlatformJobPayload = {
  userId?: string;
  agentId?: string;
  plan?: string;
  aiProvider?: string;
  agentType?: string;
  autoProvision?: boolean;
  [field: string]: unknown;
};

// Durable priority queue of platform jobs (/api/platform-jobs on the backend).
// No foreign keys: internal callers enqueue for users and agents that provisioning may not have created yet.
export const platformJobs = pgTable(
  "platform_jobs",
  {
    id: text("id").primaryKey(),
    userId: text("user_id"),
    agentId: text("agent_id"),
    lane: text("lane").$type<PlatformJobLane>().notNull(),
    jobType: text("job_type").$type<PlatformJobType>().notNull(),
    status: text("status").$type<PlatformJobStatus>().notNull().default("queued"),
    /** Higher runs first: provision 100, chat 50. */
    priority: integer("priority").notNull().default(0),
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(3),
    runAt: timestamptz("run_at").notNull().defaultNow(),
    lockedAt: timestamptz("locked_at"),
    /** Fencing token set at each claim; completion and failure only apply while it still matches. */
    lockToken: text("lock_token"),
    startedAt: timestamptz("started_at"),
    completedAt: timestamptz("completed_at"),
    error: text("error"),
    result: jsonb("result").$type<Record<string, unknown>>(),
    /**
     * The step the current attempt last reported ("installing the agent runtime 2026.4.11…"); cleared when
     * an attempt starts, kept when it ends (a failed job shows the step it failed in).
     */
    progress: text("progress"),
    payload: jsonb("payload").$type<PlatformJobPayload>().notNull().default({}),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("platform_jobs_id_prefix", sql`starts_with(${t.id}, 'job_')`),
    check("platform_jobs_lane", sql`${t.lane} in ('deploy', 'runtime_exec', 'recovery')`),
    check("platform_jobs_status", sql`${t.status} in ('queued', 'running', 'completed', 'failed')`),
    check(
      "platform_jobs_job_type_lane",
      sql`(${t.jobType} = 'provision_managed_runtime' and ${t.lane} = 'deploy')
        or (${t.jobType} = 'gateway_chat_completion' and ${t.lane} = 'runtime_exec')
        or (${t.jobType} in ('runtime_sync', 'retry_repair') and ${t.lane} = 'recovery')`,
    ),
    check("platform_jobs_attempts", sql`${t.attempts} >= 0 and ${t.maxAttempts} >= 1`),
    // Claim: WHERE status = 'queued' AND run_at <= now() ORDER BY priority DESC, run_at FOR UPDATE SKIP LOCKED.
    // DESC keys are NULLS FIRST so a plain `ORDER BY ... DESC` (drizzle's desc()) can use the index.
    index("platform_jobs_claim_idx")
      .on(t.priority.desc().nullsFirst(), t.runAt.asc())
      .where(sql`${t.status} = 'queued'`),
    // Stale sweep: running jobs locked more than 10 minutes ago go back to queued.
    // Partial: only running rows, so finished jobs never touch it.
    index("platform_jobs_running_locked_at_idx").on(t.lockedAt).where(sql`${t.status} = 'running'`),
    // Metrics: counts per lane and status.
    index("platform_jobs_lane_status_idx").on(t.lane, t.status),
    // Metrics: oldestQueuedAgeSeconds.
    index("platform_jobs_queued_created_at_idx").on(t.createdAt).where(sql`${t.status} = 'queued'`),
    // Per-user workload gate and job lookups by owner.
    // Partial: the workload gate and admin views look at a user's active jobs only.
    index("platform_jobs_user_id_active_idx").on(t.userId).where(sql`${t.status} in ('queued', 'running')`),
    // A user's jobs, newest first, paged by (created_at, id) (GET /api/platform-jobs). Not (…, id): with
    // PostgreSQL 18's skip scan the planner would take such an index for the queue's primary-key lookups.
    index("platform_jobs_user_created_idx").on(t.userId, t.createdAt),
  ],
);
export type PlatformJob = typeof platformJobs.$inferSelect;
export type NewPlatformJob = typeof platformJobs.$inferInsert;
