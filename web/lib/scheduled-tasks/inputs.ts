import { cronScheduleProblem } from "@svc/common/cron";
import { z } from "zod";

/** Longest name, description and prompt: these keep rows and agent calls bounded. */
export const TASK_NAME_MAX = 200;
export const TASK_DESCRIPTION_MAX = 2_000;
export const TASK_PROMPT_MAX = 20_000;

const required = (what: string) => ({
  error: (issue: { input: unknown }) => (issue.input === undefined ? "is required" : `must be ${what}`),
});

const text = (max: number) =>
  z
    .string(required("a string"))
    .trim()
    .min(1, "must not be empty")
    .max(max, `must be at most ${max} characters`);

/** 5 or 6 cron fields (counted first), then cron-parser in UTC; the message names the rule or the parser's reason. */
export const cronSchedule = z
  .string(required("a string"))
  .trim()
  .superRefine((value, ctx) => {
    const problem = cronScheduleProblem(value);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  })
  .meta({ title: "Schedule" });

const id = z.string(required("a string")).trim().min(1, "must not be empty");
const description = z
  .string("must be a string or null")
  .trim()
  .max(TASK_DESCRIPTION_MAX, `must be at most ${TASK_DESCRIPTION_MAX} characters`)
  .nullable()
  .transform((value) => (value ? value : null));
const enabled = z.boolean("must be true or false");

/** `POST /api/scheduled-tasks`. */
export const createTaskBody = z.strictObject({
  name: text(TASK_NAME_MAX),
  cronSchedule,
  prompt: text(TASK_PROMPT_MAX),
  agentId: id,
  description: description.optional(),
  enabled: enabled.optional(),
});
export type CreateTaskInput = z.infer<typeof createTaskBody>;

/** `PUT /api/scheduled-tasks`: `taskId` and the fields to change. */
export const updateTaskBody = z.strictObject({
  taskId: id,
  name: text(TASK_NAME_MAX).optional(),
  description: description.optional(),
  cronSchedule: cronSchedule.optional(),
  prompt: text(TASK_PROMPT_MAX).optional(),
  enabled: enabled.optional(),
});
export type UpdateTaskInput = z.infer<typeof updateTaskBody>;

/** `DELETE /api/scheduled-tasks`. */
export const deleteTaskBody = z.strictObject({ taskId: id });

/** `GET /api/scheduled-tasks?agentId=`. */
export const listTasksQuery = z.strictObject({ agentId: id.optional() });

export const taskStatus = z.enum(["pending", "running", "completed", "failed"]);

/** A scheduled task as every endpoint answers it. */
export const scheduledTask = z
  .object({
    id: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    cronSchedule: z.string(),
    prompt: z.string(),
    enabled: z.boolean(),
    lastRun: z.string().nullable(),
    nextRun: z.string().nullable(),
    status: taskStatus,
    attempts: z.number().int(),
    maxAttempts: z.number().int(),
    lastError: z.string().nullable(),
    agentId: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: "ScheduledTask" });
export type ScheduledTaskView = z.infer<typeof scheduledTask>;

export const taskList = z.object({ tasks: z.array(scheduledTask), count: z.number().int() });
export type TaskList = z.infer<typeof taskList>;

export const deletedTask = z.object({ success: z.literal(true), taskId: z.string() });

/** An agent a task can be given to, as the dashboard lists it. */
