/**
 * Scheduled tasks: the owner's CRUD. The backend's scheduler
 * (`backend/src/scheduled-tasks/`) dispatches them; this side keeps `nextRun` right when a task is created, its
 * schedule changes, or it is enabled again. Every query is scoped to the user: another user's task or agent
 * answers 404. Each plan bounds how many tasks a user has and how often one may run (./config.ts), so no
 * user can fill the scheduler's dispatch slots.
 */
import { newId } from "@svc/common";
import { nextCronRun, shortestCronIntervalSeconds } from "@svc/common/cron";
import { type ScheduledTask, scheduledTasks, users } from "@svc/db/schema";
import { and, count, desc, eq } from "drizzle-orm";
import { requireUserAgent } from "../agents/service";
import type { WebContext } from "../infra/context";
import { signInFirst } from "../sessions/errors";
import { type TaskLimits, taskLimitsOfPlan } from "./config";
import { scheduleTooFrequent, taskLimitReached, taskNotFound } from "./errors";
import type { CreateTaskInput, ScheduledTaskView, TaskList, UpdateTaskInput } from "./inputs";

type Deps = Pick<WebContext, "db" | "clock" | "config" | "logger">;

function iso(value: Date | null): string | null {
  return value ? value.toISOString() : null;
}

/** The row as the API shows it (never the owner or the scheduler's claim). */
export function toTaskView(row: ScheduledTask): ScheduledTaskView {
  return {
    id: row.id,
    name: row.name,
    description: row.description,
    cronSchedule: row.cronSchedule,
    prompt: row.prompt,
    enabled: row.enabled,
    lastRun: iso(row.lastRun),
    nextRun: iso(row.nextRun),
    status: row.status,
    attempts: row.attempts,
    maxAttempts: row.maxAttempts,
    lastError: row.lastError,
    agentId: row.agentId,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

/** The user's tasks, newest first, optionally of one of their agents (404 for an agent not theirs). */
export async function listTasks(deps: Deps, userId: string, agentId?: string): Promise<TaskList> {
  if (agentId !== undefined) await requireUserAgent(deps, userId, agentId);
  const rows = await deps.db
    .select()
    .from(scheduledTasks)
    .where(
      and(
        eq(scheduledTasks.userId, userId),
        agentId === undefined ? undefined : eq(scheduledTasks.agentId, agentId),
      ),
    )
    .orderBy(desc(scheduledTasks.createdAt), desc(scheduledTasks.id));
  return { tasks: rows.map(toTaskView), count: rows.length };
}

type Tx = Parameters<Parameters<WebContext["db"]["transaction"]>[0]>[0];

/**
 * The user's plan limits. With `lock`, the account row stays locked to the end of the transaction: one
 * user's task creations run one at a time, so two at once cannot both pass the count.
 */
async function taskLimitsOf(
  deps: Deps,
  tx: Tx,
  userId: string,
  { lock }: { lock: boolean },
): Promise<TaskLimits> {
  const query = tx.select({ plan: users.plan }).from(users).where(eq(users.id, userId));
  const [account] = lock ? await query.for("update") : await query;
  if (!account) throw signInFirst();
  return taskLimitsOfPlan(deps.config, account.plan);
}

/** 400 when `cronSchedule` runs more often than the plan's minimum interval. */
function assertScheduleAllowed(cronSchedule: string, limits: TaskLimits): void {
  const shortest = shortestCronIntervalSeconds(cronSchedule);
  if (shortest !== null && shortest < limits.minIntervalSeconds) {
    throw scheduleTooFrequent(limits.plan, shortest, limits.minIntervalSeconds);
  }
}

/**
 * Creates a task on one of the user's agents: `pending`, `nextRun` the schedule's next time after now.
 * Refused when the schedule runs more often than the user's plan allows (400) or the user already has as
 * many tasks as it allows (403).
 */
export async function createTask(
  deps: Deps,
  userId: string,
  input: CreateTaskInput,
): Promise<ScheduledTaskView> {
  await requireUserAgent(deps, userId, input.agentId);
  return deps.db.transaction(async (tx) => {
    const limits = await taskLimitsOf(deps, tx, userId, { lock: true });
    assertScheduleAllowed(input.cronSchedule, limits);
    const [{ tasks }] = await tx
      .select({ tasks: count() })
      .from(scheduledTasks)
      .where(eq(scheduledTasks.userId, userId));
    if (tasks >= limits.tasksPerUser) throw taskLimitReached(limits.plan, limits.tasksPerUser);
    const now = deps.clock.now();
    const [row] = await tx
      .insert(scheduledTasks)
      .values({
        id: newId("task"),
        userId,
        agentId: input.agentId,
        name: input.name,
        description: input.description ?? null,
        cronSchedule: input.cronSchedule,
        prompt: input.prompt,
        enabled: input.enabled ?? true,
        status: "pending",
        nextRun: nextCronRun(input.cronSchedule, now),
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    return toTaskView(row);
  });
}

/**
 * Changes a task of the user. `nextRun` is computed again from now when the schedule changes or a disabled
 * task is enabled; a `failed` task set `enabled: true` goes back to `pending` with `attempts` 0. The row is
 * locked meanwhile, so a scheduler's outcome and this change are applied one after the other. A new
 * schedule, or a task that starts running again, must keep the plan's minimum interval (400).
 */
export async function updateTask(
  deps: Deps,
  userId: string,
  input: UpdateTaskInput,
): Promise<ScheduledTaskView> {
  return deps.db.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(scheduledTasks)
      .where(and(eq(scheduledTasks.id, input.taskId), eq(scheduledTasks.userId, userId)))
      .for("update");
    if (!current) throw taskNotFound();
    const now = deps.clock.now();
    const cron = input.cronSchedule ?? current.cronSchedule;
    const enabled = input.enabled ?? current.enabled;
    const scheduleChanged = input.cronSchedule !== undefined && input.cronSchedule !== current.cronSchedule;
    const enabledAgain = enabled && !current.enabled;
    const retryFailed = input.enabled === true && current.status === "failed";
    const restart = (enabledAgain && current.status !== "running") || retryFailed;
    const changes: Partial<ScheduledTask> = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.prompt !== undefined ? { prompt: input.prompt } : {}),
      cronSchedule: cron,
      enabled,
      updatedAt: now,
    };
    if (scheduleChanged || enabledAgain || retryFailed) {
      assertScheduleAllowed(cron, await taskLimitsOf(deps, tx, userId, { lock: false }));
      changes.nextRun = nextCronRun(cron, now);
    }
    if (restart) Object.assign(changes, { status: "pending", attempts: 0 });
    const [row] = await tx
      .update(scheduledTasks)
      .set(changes)
      .where(eq(scheduledTasks.id, current.id))
      .returning();
    return toTaskView(row);
  });
}

/** Deletes a task of the user (404 when it is not theirs). */
export async function deleteTask(
  deps: Deps,
  userId: string,
  taskId: string,
): Promise<{ success: true; taskId: string }> {
  const rows = await deps.db
    .delete(scheduledTasks)
    .where(and(eq(scheduledTasks.id, taskId), eq(scheduledTasks.userId, userId)))
    .returning({ id: scheduledTasks.id });
  if (!rows[0]) throw taskNotFound();
  return { success: true, taskId: rows[0].id };
}
