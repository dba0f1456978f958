import { sql } from "drizzle-orm";
import { boolean, check, index, integer, pgTable, text } from "drizzle-orm/pg-core";
import { createdAt, timestamptz, updatedAt } from "./columns";
import { ownerColumns } from "./owner";

export type ScheduledTaskStatus = "pending" | "running" | "completed" | "failed";

// Cron-scheduled prompts dispatched to agents.
export const scheduledTasks = pgTable(
  "scheduled_tasks",
  {
    id: text("id").primaryKey(),
    ...ownerColumns(),
    name: text("name").notNull(),
    description: text("description"),
    /** 5 or 6 cron fields. */
    cronSchedule: text("cron_schedule").notNull(),
    prompt: text("prompt").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    lastRun: timestamptz("last_run"),
    nextRun: timestamptz("next_run"),
    status: text("status").$type<ScheduledTaskStatus>().notNull().default("pending"),
    /** Dispatch attempts for the current run; reset to 0 on the next scheduled trigger. */
    attempts: integer("attempts").notNull().default(0),
    maxAttempts: integer("max_attempts").notNull().default(5),
    lastError: text("last_error"),
    /** When the scheduler moved it to running; a claim older than 10 minutes is stale. */
    claimedAt: timestamptz("claimed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    check("scheduled_tasks_status", sql`${t.status} in ('pending', 'running', 'completed', 'failed')`),
    check("scheduled_tasks_attempts", sql`${t.attempts} >= 0 and ${t.maxAttempts} >= 1`),
    // Scheduler tick: due, enabled, pending tasks, up to 10 claimed with FOR UPDATE SKIP LOCKED.
    index("scheduled_tasks_due_idx").on(t.nextRun).where(sql`${t.enabled} and ${t.status} = 'pending'`),
    // Scheduler claims, round-robin over users: the next user with a due task, and that user's oldest ones.
    index("scheduled_tasks_user_due_idx")
      .on(t.userId, t.nextRun, t.id)
      .where(sql`${t.enabled} and ${t.status} = 'pending'`),
    // Stale-claim recovery: running tasks claimed more than 10 minutes ago.
    index("scheduled_tasks_status_claimed_at_idx").on(t.status, t.claimedAt),
    // List newest first for the owner.
    index("scheduled_tasks_user_id_created_at_idx").on(t.userId, t.createdAt.desc().nullsFirst()),
    index("scheduled_tasks_agent_id_idx").on(t.agentId),
  ],
);
export type ScheduledTask = typeof scheduledTasks.$inferSelect;
export type NewScheduledTask = typeof scheduledTasks.$inferInsert;
