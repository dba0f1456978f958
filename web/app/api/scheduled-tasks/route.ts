import { webContext } from "@/lib/infra/context";
import { parseWith, readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { createTaskBody, deleteTaskBody, listTasksQuery, updateTaskBody } from "@/lib/scheduled-tasks/inputs";
import { createTask, deleteTask, listTasks, updateTask } from "@/lib/scheduled-tasks/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/scheduled-tasks[?agentId=] (session): `{tasks, count}`, newest first. */
export const GET = route({ auth: { area: "tasks", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const query = parseWith(listTasksQuery, Object.fromEntries(new URL(request.url).searchParams));
  return Response.json(await listTasks(ctx, user.id, query.agentId));
});

/** POST /api/scheduled-tasks (session): 201 with the task. */
export const POST = route({ auth: { area: "tasks", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, createTaskBody);
  return Response.json(await createTask(ctx, user.id, input), { status: 201 });
});

/** PUT /api/scheduled-tasks (session) `{taskId, ...changes}`: the updated task. */
export const PUT = route({ auth: { area: "tasks", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, updateTaskBody);
  return Response.json(await updateTask(ctx, user.id, input));
});

/** DELETE /api/scheduled-tasks (session) `{taskId}`: `{success: true, taskId}`. */
export const DELETE = route({ auth: { area: "tasks", access: "write" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const { taskId } = await readJson(request, deleteTaskBody);
  return Response.json(await deleteTask(ctx, user.id, taskId));
});
