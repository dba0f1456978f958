/**
 * The task scheduler against a real PostgreSQL and the one fake agent runtime on loopback, with an injected
 * clock: every row of the "Scheduled task" state table, the next run from the scheduled time, 5- and
 * 6-field schedules, the 10-per-claim batches, two schedulers dispatching 500 tasks exactly once, and the
 * dispatch going to the agent's stored URL with its own gateway token.
 */
import { createServer } from "node:net";
import { createLogger, ManualClock, newId, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { metricsRegistry } from "@svc/common/metrics/index";
import {
  type FakeAgentRuntime,
  metricValue,
  startAgentImpostor,
  startFakeAgentRuntime,
} from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { agents, type NewScheduledTask, type ScheduledTask, scheduledTasks } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createUser } from "../testing";
import { createTaskScheduler, type TaskSchedulerOptions } from "./scheduler";
import { claimDueTasks, completeTasks, STALE_WORKER_ERROR } from "./sql";

const database = connectDatabase(process.env.DATABASE_URL as string, { max: 20 });
const logger = createLogger("scheduler-test", "silent");
const DATA_KEY = "5c".repeat(32);
const START = "2026-03-10T10:00:00.000Z";
const clock = new ManualClock(START);

let runtime: FakeAgentRuntime;
let otherRuntime: FakeAgentRuntime;
/** Agent A's runtime as its wrapper fronts it: it proves it is agt_a's before it gets the token. */
const agentA = {
  token: "token-of-agent-a",
  adminPassword: wrapperAdminPassword(DATA_KEY, "agt_a", "token-of-agent-a"),
};

/** What an agent received besides its wrapper's identity challenges. */
const sent = (fake: FakeAgentRuntime) => fake.requests.filter((r) => !r.path.startsWith("/api/identity"));

beforeAll(async () => {
  runtime = await startFakeAgentRuntime(agentA);
  otherRuntime = await startFakeAgentRuntime({
    token: "token-of-agent-b",
    adminPassword: wrapperAdminPassword(DATA_KEY, "agt_b", "token-of-agent-b"),
  });
  await createUser({ id: "usr_a", email: "a@example.com", name: "A" }, database.db);
  await createUser({ id: "usr_b", email: "b@example.com", name: "B" }, database.db);
  await database.db.insert(agents).values([
    {
      id: "agt_a",
      userId: "usr_a",
      name: "A",
      url: runtime.url,
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "token-of-agent-a"),
      status: "running",
    },
    {
      id: "agt_b",
      userId: "usr_b",
      name: "B",
      url: otherRuntime.url,
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "token-of-agent-b"),
      status: "running",
    },
  ]);
});

afterAll(async () => {
  await runtime.close();
  await otherRuntime.close();
  await database.close();
});

beforeEach(async () => {
  await database.pool.query("delete from scheduled_tasks");
  await database.db.update(agents).set({ url: runtime.url, status: "running" }).where(eq(agents.id, "agt_a"));
  clock.set(START);
  for (const fake of [runtime, otherRuntime]) {
    fake.completions.length = 0;
    fake.requests.length = 0;
    fake.failWith(null);
    fake.setDelay(0);
  }
});

function scheduler(overrides: Partial<TaskSchedulerOptions> = {}) {
  return createTaskScheduler({
    pool: database.pool,
    dataEncryptionKey: DATA_KEY,
    logger,
    pollMs: 30_000,
    clock,
    ...overrides,
  });
}

async function addTask(values: Partial<NewScheduledTask> = {}): Promise<ScheduledTask> {
  const [row] = await database.db
    .insert(scheduledTasks)
    .values({
      id: newId("task"),
      userId: "usr_a",
      agentId: "agt_a",
      name: "digest",
      cronSchedule: "0 * * * *",
      prompt: "Summarize the news",
      nextRun: new Date(START),
      ...values,
    })
    .returning();
  return row;
}

async function task(id: string): Promise<ScheduledTask> {
  const [row] = await database.db.select().from(scheduledTasks).where(eq(scheduledTasks.id, id));
  return row;
}

const iso = (value: Date | null) => value?.toISOString() ?? null;

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("a due task", () => {
  it("whose run the agent's provider failed (OpenClaw's 200 with the error as the reply) is a failed dispatch", async () => {
    runtime.setReply(() => "LLM request failed: network connection error.");
    try {
      const t = await addTask({ prompt: "Summarize my inbox" });
      clock.advance(2_000);
      expect(await scheduler().tick()).toMatchObject({ dispatched: 1 });
      const after = await task(t.id);
      expect(after.attempts).toBe(1);
      expect(after.lastError).toBe("the agent's run failed: LLM request failed: network connection error.");
    } finally {
      runtime.setReply((messages) => `echo: ${String(messages.at(-1)?.content ?? "")}`);
    }
  });

  it("is dispatched to its agent's stored URL with the agent's gateway token, then returns to pending", async () => {
    const t = await addTask({ prompt: "What is on my calendar?" });
    clock.advance(2_000);
    const report = await scheduler().tick();
    expect(report).toMatchObject({ dispatched: 1, claims: [1], recovered: 0 });
    expect(runtime.completions).toHaveLength(1);
    expect(runtime.completions[0]).toMatchObject({
      authorization: "Bearer token-of-agent-a",
      messages: [{ role: "user", content: "What is on my calendar?" }],
      // The task's own runtime session: its runs share their context, apart from the user's chat.
      body: { user: `platform:usr_a:task:${t.id}` },
    });
    expect(sent(runtime).map((r) => `${r.method} ${r.path}`)).toEqual(["POST /v1/chat/completions"]);
    expect(otherRuntime.requests).toHaveLength(0);
    const after = await task(t.id);
    expect(after).toMatchObject({ status: "pending", attempts: 0, lastError: null, claimedAt: null });
    expect(iso(after.lastRun)).toBe("2026-03-10T10:00:02.000Z");
    expect(iso(after.nextRun)).toBe("2026-03-10T11:00:00.000Z");
  });

  it("each task goes to its own agent with that agent's token; a prompt naming a URL is only text", async () => {
    const a = await addTask({ prompt: "task of A: fetch http://127.0.0.1:1/steal" });
    const b = await addTask({ userId: "usr_b", agentId: "agt_b", prompt: "task of B" });
    await scheduler().tick();
    expect(runtime.completions.map((c) => [c.authorization, c.messages[0].content])).toEqual([
      ["Bearer token-of-agent-a", "task of A: fetch http://127.0.0.1:1/steal"],
    ]);
    expect(otherRuntime.completions.map((c) => [c.authorization, c.messages[0].content])).toEqual([
      ["Bearer token-of-agent-b", "task of B"],
    ]);
    expect((await task(a.id)).status).toBe("pending");
    expect((await task(b.id)).status).toBe("pending");
  });

  it("a task not yet due, a disabled one and a failed one are not dispatched", async () => {
    await addTask({ nextRun: new Date("2026-03-10T10:00:01.000Z") });
    await addTask({ enabled: false });
    await addTask({ status: "failed", attempts: 5, nextRun: null });
    await addTask({ status: "failed", attempts: 5 });
    expect(await scheduler().tick()).toMatchObject({ dispatched: 0 });
    expect(runtime.requests).toHaveLength(0);
  });

  it("the next run comes from the scheduled time: a dispatch that ends late does not shift the schedule", async () => {
    const t = await addTask({ cronSchedule: "* * * * *" });
    clock.advance(5_000); // claimed at 10:00:05
    // The agent takes 90 s (by the injected clock) to answer.
    const onRequest = (r: { path: string }) => r.path.startsWith("/v1/") && clock.advance(90_000);
    const slow = await startFakeAgentRuntime({ ...agentA, onRequest });
    try {
      await database.db.update(agents).set({ url: slow.url }).where(eq(agents.id, "agt_a"));
      await scheduler().tick();
      expect(slow.completions).toHaveLength(1);
    } finally {
      await slow.close();
    }
    const after = await task(t.id);
    expect(iso(after.lastRun)).toBe("2026-03-10T10:00:05.000Z");
    // 10:01 (the next minute after the 10:00 occurrence), not 10:02 (the next after it ended at 10:01:35).
    expect(iso(after.nextRun)).toBe("2026-03-10T10:01:00.000Z");
    clock.set("2026-03-10T10:01:36.000Z");
    expect((await scheduler().tick()).dispatched).toBe(1);
  });

  it("occurrences missed while the platform was down run once, not once each", async () => {
    const t = await addTask({ cronSchedule: "0 * * * *", nextRun: new Date("2026-03-10T05:00:00.000Z") });
    // Down from 05:00 to 10:30: five hourly occurrences missed.
    clock.set("2026-03-10T10:30:00.000Z");
    expect((await scheduler().tick()).dispatched).toBe(1);
    expect(iso((await task(t.id)).nextRun)).toBe("2026-03-10T11:00:00.000Z");
    expect((await scheduler().tick()).dispatched).toBe(0);
    expect(runtime.completions).toHaveLength(1);
  });

  it("a 5-field schedule steps by minutes, a 6-field one by seconds (seconds first), in UTC", async () => {
    const five = await addTask({ cronSchedule: "15 */2 * * *" });
    const six = await addTask({ cronSchedule: "*/20 * * * * *" });
    clock.advance(1_000);
    await scheduler().tick();
    expect(iso((await task(five.id)).nextRun)).toBe("2026-03-10T10:15:00.000Z");
    expect(iso((await task(six.id)).nextRun)).toBe("2026-03-10T10:00:20.000Z");
  });

  it("a task disabled while its dispatch runs ends completed, and is not dispatched again", async () => {
    const t = await addTask();
    runtime.setDelay(2_000); // the answer waits; the disable lands meanwhile
    const ticking = scheduler().tick();
    await expect.poll(() => runtime.completions.length).toBe(1);
    await database.db.update(scheduledTasks).set({ enabled: false }).where(eq(scheduledTasks.id, t.id));
    await ticking;
    const after = await task(t.id);
    expect(after).toMatchObject({ status: "completed", enabled: false, attempts: 0 });
    expect(iso(after.lastRun)).toBe(START);
    clock.advance(24 * 3_600_000);
    expect((await scheduler().tick()).dispatched).toBe(0);
  });
});

describe("a failed dispatch", () => {
  it("non-2xx: lastError set, attempts 1, back to pending at now + 30 s", async () => {
    const t = await addTask();
    runtime.failWith(502, "upstream model down");
    clock.advance(1_000);
    await scheduler().tick();
    const after = await task(t.id);
    expect(after).toMatchObject({ status: "pending", attempts: 1, lastRun: null, claimedAt: null });
    expect(after.lastError).toMatch(/^the agent gateway answered HTTP 502: .*upstream model down/);
    expect(iso(after.nextRun)).toBe("2026-03-10T10:00:31.000Z");
  });

  it("a timeout: lastError names it, attempts 1", async () => {
    const t = await addTask();
    runtime.setDelay(5_000);
    await scheduler({ dispatchTimeoutMs: 200 }).tick();
    const after = await task(t.id);
    expect(after).toMatchObject({ status: "pending", attempts: 1 });
    expect(after.lastError).toBe("the agent gateway did not answer within 0.2 s");
    expect(iso(after.nextRun)).toBe("2026-03-10T10:00:30.000Z");
  });

  it("a network error: lastError names it, attempts 1", async () => {
    const t = await addTask();
    const port = await closedPort();
    await database.db
      .update(agents)
      .set({ url: `http://127.0.0.1:${port}` })
      .where(eq(agents.id, "agt_a"));
    await scheduler().tick();
    const after = await task(t.id);
    expect(after).toMatchObject({ status: "pending", attempts: 1 });
    expect(after.lastError).toMatch(/^the agent gateway could not be reached \(ECONNREFUSED\)/);
  });

  it("an agent without a runtime URL is a failure too (no other address is tried)", async () => {
    const t = await addTask();
    await database.db.update(agents).set({ url: null }).where(eq(agents.id, "agt_a"));
    await scheduler().tick();
    expect(await task(t.id)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastError: "agent agt_a has no runtime URL",
    });
    expect(runtime.requests).toHaveLength(0);
  });

  it("a task naming another user's agent is never sent to it (the agent is looked up by the task's user)", async () => {
    const t = await addTask({ userId: "usr_b", agentId: "agt_a" });
    await scheduler().tick();
    expect(await task(t.id)).toMatchObject({
      status: "pending",
      attempts: 1,
      lastError: "agent agt_a not found",
    });
    expect(runtime.requests).toHaveLength(0);
  });

  it.each(["stopped", "crashed", "degraded", "pending"])(
    "an agent whose stored status is %s is a failure, and nothing is sent to its address",
    async (status) => {
      const t = await addTask();
      await database.db.update(agents).set({ status }).where(eq(agents.id, "agt_a"));
      await scheduler().tick();
      expect(await task(t.id)).toMatchObject({
        status: "pending",
        attempts: 1,
        lastError: `agent agt_a is ${status}, not running: nothing was sent to it`,
      });
      expect(runtime.requests).toHaveLength(0);
    },
  );

  it("another agent on the port of the agent's stopped wrapper gets the challenge, never the token", async () => {
    const t = await addTask();
    // Agent A's wrapper is gone; a co-hosted agent listens on its port (the stored URL), the row says running.
    const impostor = await startAgentImpostor();
    try {
      await database.db.update(agents).set({ url: impostor.url }).where(eq(agents.id, "agt_a"));
      await scheduler().tick();
      const after = await task(t.id);
      expect(after).toMatchObject({ status: "pending", attempts: 1 });
      expect(after.lastError).toBe(
        `the agent at 127.0.0.1:${impostor.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`,
      );
      expect(impostor.requests.map((r) => r.path.split("?")[0])).toEqual(["/api/identity"]);
      expect(impostor.credentials).toEqual([]);
    } finally {
      await impostor.close();
    }
  });

  it("backs off 30, 60, 90, 120 s and is failed at the 5th attempt, with no automatic retry", async () => {
    const t = await addTask();
    runtime.failWith(500);
    const s = scheduler();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 4; attempt++) {
      await s.tick();
      const after = await task(t.id);
      expect(after).toMatchObject({ status: "pending", attempts: attempt });
      delays.push(((after.nextRun as Date).getTime() - clock.now().getTime()) / 1000);
      clock.set(after.nextRun as Date);
    }
    expect(delays).toEqual([30, 60, 90, 120]);
    await s.tick();
    const failed = await task(t.id);
    expect(failed).toMatchObject({ status: "failed", attempts: 5, nextRun: null });
    expect(failed.lastError).toMatch(/HTTP 500/);
    clock.advance(24 * 3_600_000);
    expect((await s.tick()).dispatched).toBe(0);
    expect(runtime.completions).toHaveLength(5);
  });

  it("the backoff is capped at 300 s", async () => {
    const t = await addTask({ maxAttempts: 13 });
    runtime.failWith(503);
    const s = scheduler();
    const delays: number[] = [];
    for (let attempt = 1; attempt <= 12; attempt++) {
      await s.tick();
      const after = await task(t.id);
      delays.push(((after.nextRun as Date).getTime() - clock.now().getTime()) / 1000);
      clock.set(after.nextRun as Date);
    }
    expect(delays).toEqual([30, 60, 90, 120, 150, 180, 210, 240, 270, 300, 300, 300]);
  });

  it("a success after failures resets attempts and clears lastError", async () => {
    const t = await addTask();
    runtime.failWith(500);
    await scheduler().tick();
    runtime.failWith(null);
    clock.set((await task(t.id)).nextRun as Date);
    await scheduler().tick();
    const after = await task(t.id);
    expect(after).toMatchObject({ status: "pending", attempts: 0, lastError: null });
    expect(iso(after.nextRun)).toBe("2026-03-10T11:00:00.000Z");
  });
});

describe("stale claims", () => {
  it("a task running for more than 10 minutes goes back to pending with nextRun = now and a stale-worker error", async () => {
    // Disabled: recovered but not dispatched again in the same tick, so the recovered state can be read.
    const stale = await addTask({
      status: "running",
      enabled: false,
      claimedAt: new Date("2026-03-10T09:49:59.000Z"),
    });
    const fresh = await addTask({
      status: "running",
      enabled: false,
      claimedAt: new Date("2026-03-10T09:50:01.000Z"),
    });
    const report = await scheduler().tick();
    expect(report).toMatchObject({ recovered: 1, dispatched: 0 });
    const after = await task(stale.id);
    expect(after).toMatchObject({
      status: "pending",
      lastError: STALE_WORKER_ERROR,
      claimedAt: null,
      attempts: 0,
    });
    expect(iso(after.nextRun)).toBe(START);
    expect(await task(fresh.id)).toMatchObject({ status: "running", lastError: null });
  });

  it("a recovered enabled task is due at once and dispatched in the same tick", async () => {
    const stale = await addTask({ status: "running", claimedAt: new Date("2026-03-10T09:40:00.000Z") });
    const report = await scheduler().tick();
    expect(report).toMatchObject({ recovered: 1, dispatched: 1 });
    expect(runtime.completions).toHaveLength(1);
    expect(await task(stale.id)).toMatchObject({ status: "pending", lastError: null, attempts: 0 });
  });

  it("the worker whose claim was recovered can no longer record its outcome", async () => {
    const t = await addTask();
    const [claim] = await claimDueTasks(database.pool, clock.now(), 10);
    clock.advance(11 * 60_000);
    await scheduler().tick(); // recovers it and dispatches it again (a new claim)
    expect(runtime.completions).toHaveLength(1);
    const settled = await task(t.id);
    const written = await completeTasks(
      database.pool,
      [{ claim, ranAt: claim.claimedAt, nextRun: null }],
      clock.now(),
    );
    expect(written.size).toBe(0);
    expect(await task(t.id)).toEqual(settled);
  });
});

describe("claims", () => {
  it("claim up to 10 tasks per statement and keep claiming within the tick until none is due", async () => {
    for (let i = 0; i < 25; i++) await addTask({ prompt: `batch ${i}` });
    const report = await scheduler().tick();
    expect(report.dispatched).toBe(25);
    expect(report.claims[0]).toBe(10);
    expect(Math.max(...report.claims)).toBeLessThanOrEqual(10);
    expect(report.claims.reduce((a, b) => a + b, 0)).toBe(25);
    expect(runtime.completions).toHaveLength(25);
  });

  it("more dispatches in flight than 10 still claim at most 10 per statement", async () => {
    for (let i = 0; i < 30; i++) await addTask({ prompt: `wide ${i}` });
    const report = await scheduler({ concurrency: 30 }).tick();
    expect(report.claims.slice(0, 3)).toEqual([10, 10, 10]);
    expect(report.dispatched).toBe(30);
  });

  it("two schedulers on one database dispatch 500 due tasks exactly once", async () => {
    const values = Array.from({ length: 500 }, (_, i) => ({
      id: newId("task"),
      userId: "usr_a",
      agentId: "agt_a",
      name: `t${i}`,
      cronSchedule: "0 0 1 1 *",
      prompt: `once ${i}`,
      nextRun: new Date(START),
    }));
    await database.db.insert(scheduledTasks).values(values);
    const second = connectDatabase(process.env.DATABASE_URL as string, { max: 12 });
    const before = metricValue(await metricsRegistry().metrics(), "scheduled_task_dispatches_total", {
      outcome: "completed",
    });
    try {
      const one = scheduler();
      const two = scheduler({ pool: second.pool });
      const [a, b] = await Promise.all([one.tick(), two.tick()]);
      expect(a.dispatched + b.dispatched).toBe(500);
      expect(a.dispatched).toBeGreaterThan(0);
      expect(b.dispatched).toBeGreaterThan(0);
    } finally {
      await second.close();
    }
    const prompts = runtime.completions.map((c) => c.messages[0].content);
    expect(prompts).toHaveLength(500);
    expect(new Set(prompts).size).toBe(500);
    const { rows } = await database.pool.query(
      "select status, count(*)::int as n, min(next_run) as next from scheduled_tasks group by status",
    );
    expect(rows).toEqual([{ status: "pending", n: 500, next: new Date("2027-01-01T00:00:00.000Z") }]);
    const after = metricValue(await metricsRegistry().metrics(), "scheduled_task_dispatches_total", {
      outcome: "completed",
    });
    expect(after - before).toBe(500);
  });
});

describe("fairness between users (issue 24, item 8)", () => {
  /** 1,000 due tasks of user A, all older than anything of B's, at A's agent. */
  async function backlogOfA(count = 1_000): Promise<void> {
    const due = new Date(new Date(START).getTime() - 60_000);
    const values = Array.from({ length: count }, (_, i) => ({
      id: newId("task"),
      userId: "usr_a",
      agentId: "agt_a",
      name: `flood ${i}`,
      cronSchedule: "0 0 1 1 *",
      prompt: `flood ${i}`,
      nextRun: due,
    }));
    await database.db.insert(scheduledTasks).values(values);
  }

  it("one user's 1,000 due tasks at a stalled agent do not keep another user's one due task out of the first claim", async () => {
    await backlogOfA();
    const b = await addTask({ userId: "usr_b", agentId: "agt_b", prompt: "task of B" });
    const release = runtime.holdCompletions();
    const ticking = scheduler().tick();
    try {
      // A's agent answers nothing yet, so every slot A holds stays held: B's task still reaches B's agent.
      await expect.poll(() => otherRuntime.completions.length).toBe(1);
      expect(otherRuntime.completions[0].messages[0].content).toBe("task of B");
      // Within the first claim: A's agent has seen at most what the first claims held.
      expect(runtime.completions.length).toBeLessThanOrEqual(10);
    } finally {
      release();
    }
    const report = await ticking;
    expect(report.dispatched).toBe(1_001);
    expect((await task(b.id)).status).toBe("pending");
  });

  it("a task of another user that falls due while the backlog drains takes the next free slot, ahead of the backlog", async () => {
    await backlogOfA();
    const releases = [runtime.holdCompletions()];
    const ticking = scheduler().tick();
    try {
      // The first claims are all A's: 10 in flight (held), 20 ready behind them.
      await expect.poll(() => runtime.completions.length).toBe(10);
      const b = await addTask({ userId: "usr_b", agentId: "agt_b", prompt: "late task of B" });
      // A's first 10 answer; 10 of A's ready tasks take their slots (held again), and the next claim takes
      // B's task first (A's later ones after it) — behind the 10 of A's still ready.
      releases.push(runtime.holdCompletions());
      releases[0]();
      await expect.poll(() => runtime.completions.length).toBe(20);
      await expect.poll(async () => (await task(b.id)).status).toBe("running");
      // A's second 10 answer: the first freed slot goes to B, who holds none, not to A's next ready task.
      releases.push(runtime.holdCompletions());
      releases[1]();
      await expect.poll(() => otherRuntime.completions.length).toBe(1);
      expect(otherRuntime.completions[0].messages[0].content).toBe("late task of B");
    } finally {
      for (const release of releases) release();
    }
    expect((await ticking).dispatched).toBe(1_001);
  });

  it("one claim takes each user's oldest due task before anyone's second", async () => {
    await backlogOfA(20);
    await addTask({ userId: "usr_b", agentId: "agt_b", prompt: "B 1", nextRun: new Date(START) });
    await addTask({ userId: "usr_b", agentId: "agt_b", prompt: "B 2", nextRun: new Date(START) });
    const claims = await claimDueTasks(database.pool, clock.now(), 4);
    expect(claims.map((c) => c.userId).sort()).toEqual(["usr_a", "usr_a", "usr_b", "usr_b"]);
    // Dispatch order: first turns first (A's older task, then B's), then second turns.
    expect(claims.map((c) => c.userId)).toEqual(["usr_a", "usr_b", "usr_a", "usr_b"]);
  });
});

describe("the loop", () => {
  it("stop claims nothing more, lets the claimed tasks finish and record, and leaves the rest due", async () => {
    for (let i = 0; i < 60; i++) await addTask({ prompt: `stop ${i}` });
    runtime.setDelay(300);
    const s = scheduler();
    const ticking = s.tick();
    await expect.poll(() => runtime.completions.length).toBeGreaterThan(0);
    await s.stop();
    const report = await ticking;
    const { rows } = await database.pool.query(
      "select status, (last_run is not null) as ran, count(*)::int as n from scheduled_tasks group by 1, 2 order by 1, 2",
    );
    // Everything claimed was dispatched and recorded; nothing is left running; the rest waits, due.
    expect(report.dispatched).toBeLessThan(60);
    expect(runtime.completions).toHaveLength(report.dispatched);
    expect(rows).toEqual([
      { status: "pending", ran: false, n: 60 - report.dispatched },
      { status: "pending", ran: true, n: report.dispatched },
    ]);
  });

  it("start ticks at once, then wakes when the earliest pending task falls due, at most pollMs apart", async () => {
    await addTask();
    const { ManualTimers } = await import("../timers");
    const timers = new ManualTimers(clock);
    const s = scheduler({ timers, pollMs: 30_000 });
    s.start();
    await timers.advance(0);
    expect(runtime.completions).toHaveLength(1);
    // Nothing due before 11:00: the next tick is a whole poll away.
    expect(timers.pendingDueTimes()).toEqual([clock.now().getTime() + 30_000]);
    await addTask({ nextRun: new Date(clock.now().getTime() + 40_000) });
    await timers.advance(30_000); // this tick finds the new task due in 10 s and wakes for it
    expect(runtime.completions).toHaveLength(1);
    expect(timers.pendingDueTimes()).toEqual([clock.now().getTime() + 10_000]);
    await timers.advance(9_999);
    expect(runtime.completions).toHaveLength(1);
    await timers.advance(1);
    expect(runtime.completions).toHaveLength(2);
    await s.stop();
    expect(timers.pendingDueTimes()).toEqual([]);
  });
});
