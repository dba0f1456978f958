import { agents, scheduledTasks, users } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DELETE, GET, POST, PUT } from "@/app/api/scheduled-tasks/route";
import { loadWebConfig } from "../infra/config";
import { overrideWebContext } from "../infra/context";
import { call, signedInUser, TEST_SESSION_SECRET, useWebTestContext, webContext } from "../infra/testing";

const { clock, config } = useWebTestContext();

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
const PATH = "/api/scheduled-tasks";
const TASK_ID = /^task_[0-9a-z]{20}$/;

let agentSeq = 0;
async function agentOf(userId: string): Promise<string> {
  const id = `agt_tasks_${++agentSeq}`;
  await webContext()
    .db.insert(agents)
    .values({ id, userId, name: `agent ${agentSeq}` });
  return id;
}

async function owner() {
  const { user, jar } = await signedInUser();
  return { user, jar, agentId: await agentOf(user.id) };
}

async function rowCount(userId: string): Promise<number> {
  const result = await webContext().db.execute<{ n: number }>(
    sql`select count(*)::int as n from scheduled_tasks where user_id = ${userId}`,
  );
  return result.rows[0].n;
}

beforeEach(() => clock.set("2026-11-21T10:00:00.000Z"));

function create(jar: Jar | undefined, json: unknown) {
  return call(POST, { method: "POST", path: PATH, json, jar });
}
function update(jar: Jar | undefined, json: unknown) {
  return call(PUT, { method: "PUT", path: PATH, json, jar });
}
function remove(jar: Jar | undefined, json: unknown) {
  return call(DELETE, { method: "DELETE", path: PATH, json, jar });
}
function list(jar: Jar | undefined, query = "") {
  return call(GET, { path: `${PATH}${query}`, jar });
}

async function created(jar: Jar, agentId: string, extra: Record<string, unknown> = {}) {
  clock.advance(1_000);
  const res = await create(jar, {
    name: "Daily digest",
    cronSchedule: "0 9 * * *",
    prompt: "Summarize",
    agentId,
    ...extra,
  });
  expect(res.status).toBe(201);
  return res.json();
}

async function expectError(res: Response, status: number, message?: RegExp) {
  expect(res.status).toBe(status);
  const body = await res.json();
  expect(typeof body.error).toBe("string");
  if (message) expect(body.error).toMatch(message);
  return body;
}

describe("POST /api/scheduled-tasks", () => {
  it("201 with the task itself: pending, attempts 0 of 5, nextRun the schedule's next UTC time", async () => {
    const { jar, agentId } = await owner();
    const res = await create(jar, {
      name: "  Daily digest ",
      cronSchedule: " 30 9 * * * ",
      prompt: "Summarize my inbox",
      agentId,
      description: "morning",
    });
    expect(res.status).toBe(201);
    const body = await res.json();
    const now = clock.now().toISOString(); // 2026-11-21T10:00:00Z: 09:30 has passed today
    expect(body).toEqual({
      id: expect.stringMatching(TASK_ID),
      name: "Daily digest",
      description: "morning",
      cronSchedule: "30 9 * * *",
      prompt: "Summarize my inbox",
      enabled: true,
      lastRun: null,
      nextRun: "2026-11-22T09:30:00.000Z",
      status: "pending",
      attempts: 0,
      maxAttempts: 5,
      lastError: null,
      agentId,
      createdAt: now,
      updatedAt: now,
    });
    const [row] = await webContext().db.select().from(scheduledTasks).where(eq(scheduledTasks.id, body.id));
    expect(row.nextRun?.toISOString()).toBe("2026-11-22T09:30:00.000Z");
  });

  it("a 6-field schedule has seconds first; description defaults to null and enabled may be false", async () => {
    const { jar, agentId } = await owner();
    const body = await created(jar, agentId, { cronSchedule: "30 */5 * * * *", enabled: false });
    expect(body.description).toBeNull();
    expect(body.enabled).toBe(false);
    const at = new Date(body.createdAt).getTime();
    expect(new Date(body.nextRun).getTime() - at).toBeLessThanOrEqual(5 * 60_000);
    expect(new Date(body.nextRun).getUTCSeconds()).toBe(30);
    expect(new Date(body.nextRun).getUTCMinutes() % 5).toBe(0);
  });

  it("400 naming each missing or bad field, and nothing is written", async () => {
    const { user, jar, agentId } = await owner();
    const good = { name: "n", cronSchedule: "* * * * *", prompt: "p", agentId };
    // Each named as the form does, with its JSON path as `field`.
    const labels = { name: "Name", cronSchedule: "Schedule", prompt: "Prompt", agentId: "Agent" } as const;
    for (const field of ["name", "cronSchedule", "prompt", "agentId"] as const) {
      const { [field]: _, ...rest } = good;
      const body = await expectError(
        await create(jar, rest),
        400,
        new RegExp(`^${labels[field]} is required$`),
      );
      expect(body.field).toBe(field);
    }
    await expectError(await create(jar, { ...good, name: "   " }), 400, /^Name must not be empty$/);
    await expectError(await create(jar, { ...good, enabled: "yes" }), 400, /^Enabled must be true or false$/);
    await expectError(await create(jar, { ...good, extra: 1 }), 400, /extra/);
    await expectError(
      await call(POST, {
        method: "POST",
        path: PATH,
        body: "{nope",
        headers: { "content-type": "application/json" },
        jar,
      }),
      400,
    );
    expect(await rowCount(user.id)).toBe(0);
  });

  it("a cron schedule is counted first (5 or 6 fields), then parsed: 400 with the rule or the parser's reason", async () => {
    const { user, jar, agentId } = await owner();
    const base = { name: "n", prompt: "p", agentId };
    for (const cron of ["* * * *", "* * * * * * *", "", "@daily", "H * * *"]) {
      await expectError(
        await create(jar, { ...base, cronSchedule: cron }),
        400,
        /^Schedule must have 5 or 6 fields/,
      );
    }
    await expectError(
      await create(jar, { ...base, cronSchedule: "61 * * * *" }),
      400,
      /^Schedule is not a valid cron schedule: .*61/,
    );
    await expectError(
      await create(jar, { ...base, cronSchedule: "a b c d e" }),
      400,
      /^Schedule is not a valid cron schedule/,
    );
    expect(await rowCount(user.id)).toBe(0);
  });

  it("401 without a session; 404 for another user's or an unknown agent", async () => {
    const { user, agentId } = await owner();
    const other = await owner();
    const body = { name: "n", cronSchedule: "* * * * *", prompt: "p", agentId };
    await expectError(await create(undefined, body), 401);
    await expectError(await create(other.jar, body), 404, /agent not found/);
    await expectError(await create(other.jar, { ...body, agentId: "agt_missing" }), 404);
    expect(await rowCount(user.id)).toBe(0);
    expect(await rowCount(other.user.id)).toBe(0);
  });
});

describe("GET /api/scheduled-tasks", () => {
  it("{tasks, count} of the caller only, newest first, filtered by agentId", async () => {
    const { user, jar, agentId } = await owner();
    const second = await agentOf(user.id);
    const a = await created(jar, agentId, { name: "a" });
    const b = await created(jar, second, { name: "b" });
    const c = await created(jar, agentId, { name: "c" });
    const other = await owner();
    await created(other.jar, other.agentId);

    const all = await list(jar);
    expect(all.status).toBe(200);
    expect(await all.json()).toEqual({ tasks: [c, b, a], count: 3 });
    expect(await (await list(jar, `?agentId=${agentId}`)).json()).toEqual({ tasks: [c, a], count: 2 });
    expect(await (await list(jar, `?agentId=${second}`)).json()).toEqual({ tasks: [b], count: 1 });
  });

  it("401 without a session; 404 for another user's agent; 400 for an unknown query field", async () => {
    const { jar } = await owner();
    const other = await owner();
    await expectError(await list(undefined), 401);
    await expectError(await list(jar, `?agentId=${other.agentId}`), 404);
    await expectError(await list(jar, "?agent=x"), 400, /agent/);
  });
});

describe("PUT /api/scheduled-tasks", () => {
  it("returns the updated task; a new schedule gets a new nextRun from now", async () => {
    const { jar, agentId } = await owner();
    const task = await created(jar, agentId);
    clock.advance(60_000);
    const res = await update(jar, {
      taskId: task.id,
      name: "Renamed",
      description: null,
      cronSchedule: "0 12 * * *",
      prompt: "New",
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      ...task,
      name: "Renamed",
      description: null,
      cronSchedule: "0 12 * * *",
      prompt: "New",
      nextRun: "2026-11-21T12:00:00.000Z",
      updatedAt: clock.now().toISOString(),
    });
  });

  it("disabling keeps nextRun; enabling again computes it afresh", async () => {
    const { jar, agentId } = await owner();
    const task = await created(jar, agentId, { cronSchedule: "0 * * * *" });
    expect(task.nextRun).toBe("2026-11-21T11:00:00.000Z");
    const off = await (await update(jar, { taskId: task.id, enabled: false })).json();
    expect(off).toMatchObject({ enabled: false, nextRun: "2026-11-21T11:00:00.000Z" });
    clock.advance(3 * 3_600_000);
    const on = await (await update(jar, { taskId: task.id, enabled: true })).json();
    expect(on).toMatchObject({ enabled: true, status: "pending", nextRun: "2026-11-21T14:00:00.000Z" });
  });

  it("a failed task set enabled: true goes back to pending with attempts 0 and a fresh nextRun", async () => {
    const { jar, agentId } = await owner();
    const task = await created(jar, agentId, { cronSchedule: "*/10 * * * *" });
    await webContext()
      .db.update(scheduledTasks)
      .set({ status: "failed", attempts: 5, lastError: "the agent gateway answered HTTP 500" })
      .where(eq(scheduledTasks.id, task.id));
    clock.advance(25 * 60_000); // 10:25:01
    const body = await (await update(jar, { taskId: task.id, enabled: true })).json();
    expect(body).toMatchObject({
      status: "pending",
      attempts: 0,
      enabled: true,
      nextRun: "2026-11-21T10:30:00.000Z",
      lastError: "the agent gateway answered HTTP 500",
    });
  });

  it("400 for a missing taskId or a bad schedule (nothing changes); 404 for another user's task; 401", async () => {
    const { jar, agentId } = await owner();
    const task = await created(jar, agentId);
    await expectError(await update(jar, { name: "x" }), 400, /^Task is required$/);
    await expectError(await update(jar, { taskId: task.id, cronSchedule: "* *" }), 400, /^Schedule /);
    await expectError(await update(jar, { taskId: task.id, agentId }), 400, /agentId/);
    const other = await owner();
    await expectError(await update(other.jar, { taskId: task.id, name: "stolen" }), 404, /task not found/);
    await expectError(await update(undefined, { taskId: task.id, name: "x" }), 401);
    expect(await (await list(jar)).json()).toEqual({ tasks: [task], count: 1 });
  });
});

describe("DELETE /api/scheduled-tasks", () => {
  it("{success: true, taskId}, and the task is gone", async () => {
    const { user, jar, agentId } = await owner();
    const task = await created(jar, agentId);
    const res = await remove(jar, { taskId: task.id });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true, taskId: task.id });
    expect(await rowCount(user.id)).toBe(0);
    await expectError(await remove(jar, { taskId: task.id }), 404);
  });

  it("400 without taskId; 404 for another user's task (it stays); 401", async () => {
    const { user, jar, agentId } = await owner();
    const task = await created(jar, agentId);
    await expectError(await remove(jar, {}), 400, /^Task is required$/);
    const other = await owner();
    await expectError(await remove(other.jar, { taskId: task.id }), 404);
    await expectError(await remove(undefined, { taskId: task.id }), 401);
    expect(await rowCount(user.id)).toBe(1);
  });
});

describe("plan limits: tasks per user and the shortest interval (issue 24, item 8)", () => {
  /** The web's configuration as these variables make it (parsed, per-plan variables included). */
  function configure(env: Record<string, string>): void {
    overrideWebContext({
      config: loadWebConfig({
        DATABASE_URL: config.DATABASE_URL,
        SESSION_SECRET: TEST_SESSION_SECRET,
        PUBLIC_URL: config.PUBLIC_URL,
        LOG_LEVEL: "silent",
        ...env,
      }),
    });
  }
  afterEach(() => overrideWebContext({ config }));

  const task = (agentId: string, cronSchedule = "0 * * * *") => ({
    name: "n",
    cronSchedule,
    prompt: "p",
    agentId,
  });

  it("by default a schedule may run once a minute at most: 400 schedule_too_frequent naming the gap, nothing written", async () => {
    expect([config.TASKS_PER_USER, config.TASK_MIN_INTERVAL_SECONDS]).toEqual([50, 60]);
    const { user, jar, agentId } = await owner();
    for (const [cron, gap] of [
      ["* * * * * *", "1 second"],
      ["*/30 * * * * *", "30 seconds"],
      ["0,59 * * * * *", "1 second"],
    ]) {
      const body = await expectError(
        await create(jar, task(agentId, cron)),
        400,
        new RegExp(
          `^Schedule runs ${gap} apart at its closest; the "solo" plan allows one run every 1 minute at most$`,
        ),
      );
      expect(body.code).toBe("schedule_too_frequent");
    }
    expect(await rowCount(user.id)).toBe(0);
    expect((await create(jar, task(agentId, "* * * * *"))).status).toBe(201);
    expect((await create(jar, task(agentId, "0 * * * * *"))).status).toBe(201);
  });

  it("403 task_limit_reached past the plan's count; deleting one makes room; each plan its own numbers", async () => {
    configure({ TASKS_PER_USER: "2", TASKS_PER_USER_PRO: "3", TASK_MIN_INTERVAL_SECONDS_PRO: "10" });
    const { user, jar, agentId } = await owner();
    const first = await (await create(jar, task(agentId))).json();
    expect((await create(jar, { ...task(agentId), enabled: false })).status).toBe(201);
    const body = await expectError(
      await create(jar, task(agentId)),
      403,
      /^the "solo" plan allows 2 scheduled tasks; delete one before adding another$/,
    );
    expect(body.code).toBe("task_limit_reached");
    expect(await rowCount(user.id)).toBe(2);
    expect((await remove(jar, { taskId: first.id })).status).toBe(200);
    expect((await create(jar, task(agentId))).status).toBe(201);

    await webContext().db.update(users).set({ plan: "pro" }).where(eq(users.id, user.id));
    expect((await create(jar, task(agentId, "*/10 * * * * *"))).status).toBe(201);
    await expectError(await create(jar, task(agentId)), 403, /the "pro" plan allows 3 scheduled tasks/);
  });

  it("creations at once cannot pass the count together", async () => {
    configure({ TASKS_PER_USER: "3" });
    const { user, jar, agentId } = await owner();
    const statuses = await Promise.all(
      Array.from({ length: 8 }, () => create(jar, task(agentId)).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 201)).toHaveLength(3);
    expect(statuses.filter((s) => s === 403)).toHaveLength(5);
    expect(await rowCount(user.id)).toBe(3);
  });

  it("an update to a schedule that runs too often, or enabling a task whose schedule does, is refused and changes nothing", async () => {
    const { jar, agentId } = await owner();
    const created = await (await create(jar, task(agentId))).json();
    await expectError(
      await update(jar, { taskId: created.id, cronSchedule: "*/10 * * * * *", name: "faster" }),
      400,
      /^Schedule runs 10 seconds apart at its closest/,
    );
    // A task from before the rule, disabled: enabling it again is refused while its schedule breaks it.
    await webContext()
      .db.update(scheduledTasks)
      .set({ cronSchedule: "* * * * * *", enabled: false })
      .where(eq(scheduledTasks.id, created.id));
    await expectError(await update(jar, { taskId: created.id, enabled: true }), 400, /runs 1 second apart/);
    const [row] = await webContext()
      .db.select()
      .from(scheduledTasks)
      .where(eq(scheduledTasks.id, created.id));
    expect(row).toMatchObject({ name: "n", cronSchedule: "* * * * * *", enabled: false });
    // Fixing the schedule and enabling it in one update works.
    const fixed = await update(jar, { taskId: created.id, cronSchedule: "*/5 * * * *", enabled: true });
    expect(fixed.status).toBe(200);
    expect(await fixed.json()).toMatchObject({ cronSchedule: "*/5 * * * *", enabled: true });
  });

  it("the variables are checked at start, each named", () => {
    const base = { DATABASE_URL: "postgres://x@localhost/x", SESSION_SECRET: TEST_SESSION_SECRET };
    expect(() => loadWebConfig({ ...base, TASKS_PER_USER_PRO: "0" })).toThrow(/TASKS_PER_USER_PRO: must be/);
    expect(() => loadWebConfig({ ...base, TASK_MIN_INTERVAL_SECONDS: "90000" })).toThrow(
      /TASK_MIN_INTERVAL_SECONDS: must be at most 86400/,
    );
    expect(() => loadWebConfig({ ...base, TASK_MIN_INTERVAL_SECONDS_TEAM: "90000" })).toThrow(
      /TASK_MIN_INTERVAL_SECONDS_TEAM: must be a whole number from 1 to 86400/,
    );
    const ok = loadWebConfig({
      ...base,
      TASKS_PER_USER_PRO_PLUS: "500",
      TASK_MIN_INTERVAL_SECONDS_PRO_PLUS: "1",
    });
    expect(ok.tasksPerUserByPlan).toEqual({ PRO_PLUS: 500 });
    expect(ok.taskMinIntervalSecondsByPlan).toEqual({ PRO_PLUS: 1 });
  });
});
