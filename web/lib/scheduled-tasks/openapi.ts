import type { ApiOperation } from "@svc/common/openapi/index";
import { crossSite, session } from "../infra/openapi/responses";
import {
  createTaskBody,
  deletedTask,
  deleteTaskBody,
  listTasksQuery,
  scheduledTask,
  taskList,
  updateTaskBody,
} from "./inputs";

const tags = ["scheduled tasks"];

/** `/api/scheduled-tasks`. */
export const tasksOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/scheduled-tasks",
    summary: "The user's scheduled tasks, newest first (optionally of one agent)",
    tags,
    auth: ["session", "apiKey"],
    scope: "tasks:read",
    query: listTasksQuery,
    success: { status: 200, description: "`{tasks, count}`", schema: taskList },
    errors: { ...session, 400: "bad query", 404: "not the user's agent" },
  },
  {
    method: "post",
    path: "/api/scheduled-tasks",
    summary: "Create a scheduled task on one of the user's agents",
    tags,
    auth: ["session", "apiKey"],
    scope: "tasks:write",
    body: createTaskBody,
    success: { status: 201, description: "the task", schema: scheduledTask },
    errors: {
      ...session,
      400: "a missing field, a cron schedule without 5 or 6 fields or that does not parse, or `schedule_too_frequent`: runs more often than the plan's minimum interval (TASK_MIN_INTERVAL_SECONDS, default 60 s)",
      403: "a state-changing request from another site, or `task_limit_reached`: the user has as many tasks as the plan allows (TASKS_PER_USER, default 50)",
      404: "not the user's agent",
    },
  },
  {
    method: "put",
    path: "/api/scheduled-tasks",
    summary: "Change a scheduled task (a failed one set enabled: true runs again)",
    tags,
    auth: ["session", "apiKey"],
    scope: "tasks:write",
    body: updateTaskBody,
    success: { status: 200, description: "the updated task", schema: scheduledTask },
    errors: {
      ...session,
      ...crossSite,
      400: "missing taskId or a bad field, or `schedule_too_frequent` (a new schedule, or enabling a task whose schedule runs more often than the plan allows)",
      404: "not the user's task",
    },
  },
  {
    method: "delete",
    path: "/api/scheduled-tasks",
    summary: "Delete a scheduled task",
    tags,
    auth: ["session", "apiKey"],
    scope: "tasks:write",
    body: deleteTaskBody,
    success: { status: 200, description: "`{success: true, taskId}`", schema: deletedTask },
    errors: { ...session, ...crossSite, 400: "missing taskId", 404: "not the user's task" },
  },
];
