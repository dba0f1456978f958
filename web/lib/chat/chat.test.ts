/**
 * Route handler tests of `POST /api/gateway/chat` and `GET /api/jobs/:jobId` against a loopback stand-in
 * for the backend's job queue: it checks the internal key and the user-context signature on its own (HMAC
 * computed here, not with the client's helper), validates the body with the backend's real schema, and
 * enqueues with the backend's real queue code, so jobs land in `platform_jobs` exactly as in production.
 */
import { createHmac, randomBytes } from "node:crypto";
import { freePort, sealGatewayToken } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { agents, platformJobs } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import type { Pool } from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { POST as CHAT } from "@/app/api/gateway/chat/route";
import { GET as GET_JOB } from "@/app/api/jobs/[jobId]/route";
import { chatJobSchema } from "../../../backend/src/platform-jobs/inputs";
import { enqueueChatJob as backendEnqueueChatJob } from "../../../backend/src/platform-jobs/service";
import { databaseClock } from "../../../backend/src/platform-jobs/sql";
import { toJobJson as backendJobJson } from "../../../backend/src/platform-jobs/types";
import {
  call,
  makeRequest,
  signedInUser,
  type TestRequest,
  useWebTestContext,
  webContext,
} from "../infra/testing";
import { SESSION_COOKIE } from "../sessions/service";
import { BackendQueueError, enqueueChatJob } from "./backend-client";
import { queueChatMessage } from "./service";

const INTERNAL_API_KEY = "chat-test-internal-key-0123456789abcdef";
const HMAC_SECRET = "chat-test-hmac-secret-0123456789abcdef";
const DATA_ENCRYPTION_KEY = "0f1e2d3c4b5a69788796a5b4c3d2e1f00f1e2d3c4b5a69788796a5b4c3d2e1f0";

/** What the stand-in does with the next calls; `hold` parks the next call until the test releases it. */
const backendMode = {
  answer: "accept" as "accept" | "fail" | "no_job",
  delayMs: 0,
  hold: null as null | { arrived: () => void; release: Promise<void> },
};
const backendDb = connectDatabase(process.env.DATABASE_URL as string, { max: 4 });
const backend: FakeUpstream = await startFakeUpstream(async (req, res, raw) => {
  if (req.method !== "POST" || req.url !== "/api/platform-jobs/chat") return sendJson(res, 404, {});
  if (req.headers.authorization !== `Bearer ${INTERNAL_API_KEY}`) return sendJson(res, 403, {});
  const userId = String(req.headers["x-user-id"]);
  const context = `${userId}:${req.headers["x-user-email"]}:${req.headers["x-user-role"]}`;
  const expected = createHmac("sha256", HMAC_SECRET).update(context).digest("hex");
  if (req.headers["x-user-signature"] !== expected) return sendJson(res, 401, { error: "INVALID_SIGNATURE" });
  const parsed = chatJobSchema.safeParse(JSON.parse(raw.toString("utf8")));
  if (!parsed.success || parsed.data.userId !== userId)
    return sendJson(res, 400, { error: "invalid_request" });
  if (backendMode.delayMs > 0) await new Promise((r) => setTimeout(r, backendMode.delayMs));
  const hold = backendMode.hold;
  if (hold) {
    backendMode.hold = null;
    hold.arrived();
    await hold.release;
  }
  if (backendMode.answer === "fail") return sendJson(res, 500, { error: "enqueue_failed" });
  if (backendMode.answer === "no_job") return sendJson(res, 202, { success: true, queued: true });
  const job = await backendEnqueueChatJob({ db: backendDb.pool, clock: databaseClock }, parsed.data);
  sendJson(res, 202, { success: true, queued: true, job: backendJobJson(job) });
});

const { clock, config } = useWebTestContext({
  BACKEND_URL: backend.url,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  DATA_ENCRYPTION_KEY,
});
afterAll(async () => {
  await backend.close();
  await backendDb.close();
});

const RUNTIME_URL = "http://127.0.0.1:18789";
let ipCounter = 0;
/** Each test speaks from its own address, so the per-IP window of one test does not leak into another. */
const freshIp = () => `198.51.100.${++ipCounter}`;

async function deployAgent(
  userId: string,
  options: {
    name?: string;
    url?: string | null;
    token?: string | null;
    sealed?: string;
    createdAt?: Date;
  } = {},
) {
  const token = options.token === undefined ? randomBytes(32).toString("hex") : options.token;
  const [agent] = await webContext()
    .db.insert(agents)
    .values({
      id: `agt_${randomBytes(8).toString("hex")}`,
      userId,
      name: options.name ?? "Scout",
      url: options.url === undefined ? RUNTIME_URL : options.url,
      gatewayTokenEncrypted:
        options.sealed ?? (token === null ? null : sealGatewayToken(DATA_ENCRYPTION_KEY, token)),
      status: "running",
      ...(options.createdAt ? { createdAt: options.createdAt } : {}),
    })
    .returning();
  return agent;
}

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];

function chat(jar: Jar | undefined, json: unknown, ip: string, extra: Partial<TestRequest> = {}) {
  return call(CHAT, { method: "POST", path: "/api/gateway/chat", json, jar, ip, ...extra });
}
function getJob(jobId: string, jar?: Jar) {
  return GET_JOB(makeRequest({ path: `/api/jobs/${jobId}`, jar }), { params: Promise.resolve({ jobId }) });
}
async function jobsOf(userId: string) {
  return webContext().db.select().from(platformJobs).where(eq(platformJobs.userId, userId));
}
async function totalJobs() {
  const { rows } = await webContext().db.execute<{ n: number }>(
    sql`select count(*)::int as n from platform_jobs`,
  );
  return rows[0].n;
}
async function setStatus(jobId: string, status: "queued" | "running" | "completed" | "failed") {
  await webContext().db.update(platformJobs).set({ status }).where(eq(platformJobs.id, jobId));
}
async function heldAdvisoryLocks() {
  const { rows } = await webContext().db.execute<{ n: number }>(
    sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and granted`,
  );
  return rows[0].n;
}
async function sessionsWaitingOnAdvisoryLock() {
  const { rows } = await backendDb.pool.query(
    "select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and wait_event = 'advisory'",
  );
  return rows[0].n as number;
}
/** Resolves once some session is blocked waiting for an advisory lock; stops looking after 10 s. */
async function untilSessionWaitsOnAdvisoryLock(): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await sessionsWaitingOnAdvisoryLock()) > 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  await new Promise(() => undefined); // never: the other side of the race decides
}
/** A user with a deployed agent. */
async function userWithAgent(agentOptions: Parameters<typeof deployAgent>[1] = {}) {
  const signedIn = await signedInUser();
  const agent = await deployAgent(signedIn.user.id, agentOptions);
  return { ...signedIn, agent };
}
/** Asserts a request was refused without anything reaching the backend or the queue. */
async function expectNothingEnqueued(run: () => Promise<Response>) {
  const calls = backend.requests.length;
  const jobs = await totalJobs();
  const res = await run();
  expect(backend.requests.length).toBe(calls);
  expect(await totalJobs()).toBe(jobs);
  return res;
}

describe("POST /api/gateway/chat", () => {
  it("enqueues a chat job through the backend: 202 with exactly the spec's fields", async () => {
    const { user, jar, agent } = await userWithAgent({ name: "Scout" });
    const res = await chat(jar, { message: "  hello agent  " }, freshIp());
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      queued: true,
      jobId: expect.stringMatching(/^job_\d{13}_[0-9a-z]{10}$/),
      status: "queued",
      agentId: agent.id,
      agentName: "Scout",
    });

    const jobs = await jobsOf(user.id);
    expect(jobs).toHaveLength(1);
    expect(jobs[0]).toMatchObject({
      id: body.jobId,
      agentId: agent.id,
      jobType: "gateway_chat_completion",
      lane: "runtime_exec",
      status: "queued",
      priority: 50,
      maxAttempts: 3,
      payload: {
        userId: user.id,
        agentId: agent.id,
        gatewayUrl: RUNTIME_URL,
        message: "hello agent",
        systemPrompt: null,
      },
    });
  });

  it("accepts 32,000 three-byte characters (past the default 64 KB body limit)", async () => {
    const { jar } = await userWithAgent();
    const res = await chat(jar, { message: "字".repeat(32_000) }, freshIp());
    expect(res.status).toBe(202);
  });

  it("sends the internal key, the signed user context and exactly the contract's body to the backend", async () => {
    const { user, jar, agent } = await userWithAgent();
    const res = await chat(jar, { message: "who are you?" }, freshIp());
    expect(res.status).toBe(202);
    const sent = backend.requests.at(-1);
    expect(sent?.method).toBe("POST");
    expect(sent?.path).toBe("/api/platform-jobs/chat");
    expect(sent?.headers.authorization).toBe(`Bearer ${INTERNAL_API_KEY}`);
    expect(sent?.headers["content-type"]).toBe("application/json");
    expect(sent?.headers["x-user-id"]).toBe(user.id);
    expect(sent?.headers["x-user-email"]).toBe(user.email);
    expect(sent?.headers["x-user-role"]).toBe("user");
    expect(sent?.headers["x-user-signature"]).toBe(
      createHmac("sha256", HMAC_SECRET).update(`${user.id}:${user.email}:user`).digest("hex"),
    );
    expect(JSON.parse(sent?.body.toString("utf8") ?? "")).toEqual({
      userId: user.id,
      agentId: agent.id,
      gatewayUrl: RUNTIME_URL,
      message: "who are you?",
      systemPrompt: null,
    });
    // The gateway token never leaves the database through the web.
    expect(sent?.body.toString("utf8")).not.toContain(agent.gatewayTokenEncrypted ?? "<none>");
  });

  it("signs with INTERNAL_API_KEY when HMAC_SECRET is unset (the backend's fallback)", async () => {
    const { user } = await signedInUser();
    const recorder = await startFakeUpstream((_req, res) =>
      sendJson(res, 202, { success: true, queued: true, job: { id: "job_1_abc", status: "queued" } }),
    );
    try {
      const job = await enqueueChatJob(
        { BACKEND_URL: recorder.url, INTERNAL_API_KEY, HMAC_SECRET: undefined },
        { user, agentId: "agt_x", gatewayUrl: RUNTIME_URL, message: "hi" },
      );
      expect(job).toEqual({ id: "job_1_abc", status: "queued" });
      expect(recorder.requests[0].headers["x-user-signature"]).toBe(
        createHmac("sha256", INTERNAL_API_KEY).update(`${user.id}:${user.email}:user`).digest("hex"),
      );
    } finally {
      await recorder.close();
    }
  });

  it("signs with INTERNAL_API_KEY when HMAC_SECRET is empty, as the runtime calls do (one signed client)", async () => {
    const { user } = await signedInUser();
    const recorder = await startFakeUpstream((_req, res) =>
      sendJson(res, 202, { success: true, queued: true, job: { id: "job_2_abc", status: "queued" } }),
    );
    try {
      await enqueueChatJob(
        { BACKEND_URL: recorder.url, INTERNAL_API_KEY, HMAC_SECRET: "" },
        { user, agentId: "agt_x", gatewayUrl: RUNTIME_URL, message: "hi" },
      );
      expect(recorder.requests[0].headers["x-user-signature"]).toBe(
        createHmac("sha256", INTERNAL_API_KEY).update(`${user.id}:${user.email}:user`).digest("hex"),
      );
    } finally {
      await recorder.close();
    }
  });

  it("uses the user's newest agent", async () => {
    const { user, jar } = await signedInUser();
    await deployAgent(user.id, { name: "Old", createdAt: new Date("2026-01-01T00:00:00Z") });
    const newest = await deployAgent(user.id, { name: "New", createdAt: new Date("2026-06-01T00:00:00Z") });
    await deployAgent(user.id, { name: "Older", createdAt: new Date("2025-01-01T00:00:00Z") });
    const res = await chat(jar, { message: "hi" }, freshIp());
    expect(res.status).toBe(202);
    expect(await res.json()).toMatchObject({ agentId: newest.id, agentName: "New" });
  });

  it("401 without a session, or with an unknown session token; nothing enqueued", async () => {
    const res = await expectNothingEnqueued(() => chat(undefined, { message: "hi" }, freshIp()));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });

    const bogus = await expectNothingEnqueued(() =>
      chat(undefined, { message: "hi" }, freshIp(), {
        headers: { cookie: `${SESSION_COOKIE}=not-a-session` },
      }),
    );
    expect(bogus.status).toBe(401);
  });

  it.each([
    ["no message", { json: {} }, { error: "Message is required", code: "invalid_request", field: "message" }],
    [
      "an empty message",
      { json: { message: "" } },
      { error: "Message is required", code: "invalid_request", field: "message" },
    ],
    [
      "a blank message",
      { json: { message: " \n\t " } },
      { error: "Message is required", code: "invalid_request", field: "message" },
    ],
    [
      "a null message",
      { json: { message: null } },
      { error: "Message must be a string", code: "invalid_request", field: "message" },
    ],
    [
      "a number",
      { json: { message: 42 } },
      { error: "Message must be a string", code: "invalid_request", field: "message" },
    ],
    [
      "a message over 32,000 characters",
      { json: { message: "x".repeat(32_001) } },
      { error: "Message must be at most 32000 characters", code: "invalid_request", field: "message" },
    ],
    [
      "the removed sessionKey parameter",
      { json: { message: "hi", sessionKey: "main" } },
      { error: "unknown field: sessionKey", code: "invalid_request" },
    ],
    [
      "any other unknown field",
      { json: { message: "hi", model: "gpt" } },
      { error: "unknown field: model", code: "invalid_request" },
    ],
    [
      "bad JSON",
      { body: "{message: hi", headers: { "content-type": "application/json" } },
      { error: "request body is not valid JSON", code: "invalid_json" },
    ],
    [
      "a JSON array",
      { json: [{ message: "hi" }] },
      { error: "request body must be a JSON object", code: "invalid_body" },
    ],
    ["a JSON string", { json: "hi" }, { error: "request body must be a JSON object", code: "invalid_body" }],
    [
      "a non-JSON content type",
      { body: "message=hi", headers: { "content-type": "application/x-www-form-urlencoded" } },
      { error: "Content-Type must be application/json", code: "bad_content_type" },
    ],
  ])("400 for %s; nothing enqueued", async (_name, request, expected) => {
    const { jar } = await userWithAgent();
    const res = await expectNothingEnqueued(() => chat(jar, undefined, freshIp(), request));
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual(expected);
  });

  it("accepts a message of exactly 32,000 characters", async () => {
    const { user, jar } = await userWithAgent();
    const res = await chat(jar, { message: "y".repeat(32_000) }, freshIp());
    expect(res.status).toBe(202);
    expect((await jobsOf(user.id))[0].payload.message).toHaveLength(32_000);
  });

  it("404 no agent deployed", async () => {
    const { jar } = await signedInUser();
    const res = await expectNothingEnqueued(() => chat(jar, { message: "hi" }, freshIp()));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "no agent deployed", code: "no_agent" });
  });

  it("404 no runtime instance when the newest agent has no URL", async () => {
    const { user, jar } = await signedInUser();
    await deployAgent(user.id, { createdAt: new Date("2026-01-01T00:00:00Z") });
    await deployAgent(user.id, { url: null, createdAt: new Date("2026-02-01T00:00:00Z") });
    const res = await expectNothingEnqueued(() => chat(jar, { message: "hi" }, freshIp()));
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: "no runtime instance", code: "no_runtime_instance" });
  });

  it("503 no gateway token available: none stored, or one that does not open with DATA_ENCRYPTION_KEY", async () => {
    const expected = { error: "no gateway token available", code: "no_gateway_token" };
    const none = await userWithAgent({ token: null });
    const res = await expectNothingEnqueued(() => chat(none.jar, { message: "hi" }, freshIp()));
    expect(res.status).toBe(503);
    expect(await res.json()).toEqual(expected);

    const otherKey = sealGatewayToken("ee".repeat(32), randomBytes(32).toString("hex"));
    const foreign = await userWithAgent({ sealed: otherKey });
    const res2 = await expectNothingEnqueued(() => chat(foreign.jar, { message: "hi" }, freshIp()));
    expect(res2.status).toBe(503);
    expect(await res2.json()).toEqual(expected);

    const garbage = await userWithAgent({ sealed: "not-encrypted" });
    const res3 = await expectNothingEnqueued(() => chat(garbage.jar, { message: "hi" }, freshIp()));
    expect(res3.status).toBe(503);
  });

  it("503 when DATA_ENCRYPTION_KEY is unset, even with a stored token", async () => {
    const { user } = await userWithAgent();
    const ctx = { ...webContext(), config: { ...config, DATA_ENCRYPTION_KEY: undefined } };
    const before = backend.requests.length;
    await expect(queueChatMessage(ctx, user.id, "hi")).rejects.toMatchObject({
      status: 503,
      code: "no_gateway_token",
      message: "no gateway token available",
    });
    expect(backend.requests.length).toBe(before);
    expect(await jobsOf(user.id)).toEqual([]);
  });

  it("404 user not found when the session's user row is gone", async () => {
    await expect(queueChatMessage(webContext(), "usr_does_not_exist", "hi")).rejects.toMatchObject({
      status: 404,
      code: "user_not_found",
      message: "user not found",
    });
  });

  it("502 backend queue error when the backend answers non-2xx or without a job; the gate lock is released", async () => {
    const { user, jar } = await userWithAgent();
    const expected = { error: "backend queue error", code: "backend_queue_error" };
    try {
      backendMode.answer = "fail";
      const res = await chat(jar, { message: "hi" }, freshIp());
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual(expected);
      backendMode.answer = "no_job";
      const res2 = await chat(jar, { message: "hi" }, freshIp());
      expect(res2.status).toBe(502);
      expect(await res2.json()).toEqual(expected);
    } finally {
      backendMode.answer = "accept";
    }
    expect(await jobsOf(user.id)).toEqual([]);
    expect(await heldAdvisoryLocks()).toBe(0);
    const ok = await chat(jar, { message: "hi" }, freshIp());
    expect(ok.status).toBe(202);
  });

  it("502 when the backend is unreachable or INTERNAL_API_KEY is unset", async () => {
    const { user } = await userWithAgent();
    const closed = `http://127.0.0.1:${await freePort()}`;
    const unreachable = { ...webContext(), config: { ...config, BACKEND_URL: closed } };
    await expect(queueChatMessage(unreachable, user.id, "hi")).rejects.toMatchObject({
      status: 502,
      code: "backend_queue_error",
      message: "backend queue error",
    });
    const before = backend.requests.length;
    const keyless = { ...webContext(), config: { ...config, INTERNAL_API_KEY: undefined } };
    await expect(queueChatMessage(keyless, user.id, "hi")).rejects.toMatchObject({ status: 502 });
    expect(backend.requests.length).toBe(before);
    expect(await jobsOf(user.id)).toEqual([]);
    expect(await heldAdvisoryLocks()).toBe(0);
  });

  it("the backend client gives up after its timeout", async () => {
    const hung = await startFakeUpstream(() => undefined);
    try {
      const attempt = enqueueChatJob(
        { BACKEND_URL: hung.url, INTERNAL_API_KEY, HMAC_SECRET },
        {
          user: { id: "usr_1", email: "a@example.com" },
          agentId: "agt_1",
          gatewayUrl: RUNTIME_URL,
          message: "hi",
        },
        200,
      );
      // The hung backend never answers: only the client's own 200 ms timeout can end the attempt.
      await expect(attempt).rejects.toThrow(new BackendQueueError("backend timed out after 200 ms"));
    } finally {
      await hung.close();
    }
  });

  it("429 rate_limited on the 31st request a minute from one IP, with Retry-After; OK again a minute later", async () => {
    const ip = freshIp();
    const idle = await signedInUser(); // no agent: each request is counted, then ends in 404
    for (let i = 0; i < 30; i++) {
      const res = await chat(idle.jar, { message: `m${i}` }, ip);
      expect(res.status).toBe(404);
    }
    const { user, jar } = await userWithAgent();
    const limited = await expectNothingEnqueued(() => chat(jar, { message: "hi" }, ip));
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBe("60");
    expect(await limited.json()).toEqual({
      error: "too many chat requests; try again later",
      code: "rate_limited",
      retryAfterSeconds: 60,
    });
    // X-Forwarded-For is not trusted (TRUST_PROXY off): it does not open a new window.
    const spoofed = await chat(jar, { message: "hi" }, ip, { headers: { "x-forwarded-for": "192.0.2.1" } });
    expect(spoofed.status).toBe(429);
    // Another address has its own window.
    expect((await chat(jar, { message: "hi" }, freshIp())).status).toBe(202);

    clock.advance(20_000);
    const later = await chat(jar, { message: "hi" }, ip);
    expect(later.status).toBe(429);
    expect(await later.json()).toMatchObject({ retryAfterSeconds: 40 });
    clock.advance(40_000);
    const next = await chat(jar, { message: "hi" }, ip);
    expect(next.status).toBe(202);
    expect(await jobsOf(user.id)).toHaveLength(2);
  });

  describe("workload gate", () => {
    const full = {
      error: "too many chat messages in progress; try again shortly",
      code: "workload_limit",
      retryAfterSeconds: 5,
    };
    const long = "L".repeat(801);

    it("4 short messages fill the slots; a finished job (completed or failed) frees its slot", async () => {
      const { user, jar } = await userWithAgent();
      const ip = freshIp();
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const res = await chat(jar, { message: `short ${i}` }, ip);
        expect(res.status).toBe(202);
        ids.push((await res.json()).jobId);
      }
      const blocked = await expectNothingEnqueued(() => chat(jar, { message: "fifth" }, ip));
      expect(blocked.status).toBe(429);
      expect(blocked.headers.get("retry-after")).toBe("5");
      expect(await blocked.json()).toEqual(full);

      await setStatus(ids[0], "running"); // running still holds its slot
      expect((await chat(jar, { message: "fifth" }, ip)).status).toBe(429);
      await setStatus(ids[0], "completed");
      expect((await chat(jar, { message: "fifth" }, ip)).status).toBe(202);
      expect((await chat(jar, { message: "sixth" }, ip)).status).toBe(429);
      await setStatus(ids[1], "failed");
      expect((await chat(jar, { message: "sixth" }, ip)).status).toBe(202);
      expect(await jobsOf(user.id)).toHaveLength(6);
    });

    it("a message over 800 characters takes 2 slots; exactly 800 takes 1", async () => {
      const { user, jar } = await userWithAgent();
      const ip = freshIp();
      const first = await chat(jar, { message: long }, ip);
      expect(first.status).toBe(202);
      const firstId = (await first.json()).jobId;
      expect((await chat(jar, { message: "a" }, ip)).status).toBe(202);
      expect((await chat(jar, { message: "b" }, ip)).status).toBe(202);
      // 2 + 1 + 1 = 4 slots: even a short one no longer fits.
      expect((await chat(jar, { message: "c" }, ip)).status).toBe(429);
      await setStatus(firstId, "completed");
      // 2 slots free: one long message fits, then nothing.
      expect((await chat(jar, { message: long }, ip)).status).toBe(202);
      const blocked = await expectNothingEnqueued(() => chat(jar, { message: "d" }, ip));
      expect(await blocked.json()).toEqual(full);

      const other = await userWithAgent();
      const exactly800 = "E".repeat(800);
      for (let i = 0; i < 4; i++)
        expect((await chat(other.jar, { message: exactly800 }, ip)).status).toBe(202);
      expect((await chat(other.jar, { message: "e" }, ip)).status).toBe(429);
      // Characters are counted after trimming: spaces around 800 characters do not make it long.
      const third = await userWithAgent();
      for (let i = 0; i < 4; i++) {
        expect((await chat(third.jar, { message: `  ${exactly800}  ` }, ip)).status).toBe(202);
      }
      expect(await jobsOf(user.id)).toHaveLength(4);
    });

    it("with 3 slots used, a long message is refused while a short one fits", async () => {
      const { jar } = await userWithAgent();
      const ip = freshIp();
      for (let i = 0; i < 3; i++) expect((await chat(jar, { message: `s${i}` }, ip)).status).toBe(202);
      const res = await expectNothingEnqueued(() => chat(jar, { message: long }, ip));
      expect(res.status).toBe(429);
      expect((await chat(jar, { message: "fits" }, ip)).status).toBe(202);
    });

    it("counts only this user's queued or running chat jobs", async () => {
      const { user, jar, agent } = await userWithAgent();
      const ip = freshIp();
      // Another user's full gate, and this user's provisioning job, take none of this user's slots.
      const busy = await userWithAgent();
      for (let i = 0; i < 4; i++) expect((await chat(busy.jar, { message: `b${i}` }, ip)).status).toBe(202);
      await webContext()
        .db.insert(platformJobs)
        .values({
          id: `job_${Date.now()}_prov000001`,
          userId: user.id,
          agentId: agent.id,
          lane: "deploy",
          jobType: "provision_managed_runtime",
          status: "queued",
          payload: { userId: user.id, message: long },
        });
      for (let i = 0; i < 4; i++) expect((await chat(jar, { message: `m${i}` }, ip)).status).toBe(202);
      expect((await chat(jar, { message: "m5" }, ip)).status).toBe(429);
    });

    it("check and enqueue are atomic: 8 concurrent messages, each retried while the gate is busy, admit exactly 4", async () => {
      const { user, jar } = await userWithAgent();
      backendMode.delayMs = 30; // widen the window between the check and the insert
      const busyAnswers: number[] = [];
      /** Sends until the answer is not "gate busy", as a client following Retry-After would. */
      const send = async (message: string): Promise<{ status: number; code?: string }> => {
        for (;;) {
          const res = await chat(jar, { message }, freshIp());
          const body = res.status === 202 ? {} : await res.json();
          if (body.code !== "workload_busy") return { status: res.status, code: body.code };
          busyAnswers.push(res.status);
          await new Promise((r) => setTimeout(r, 5));
        }
      };
      try {
        const results = await Promise.all(Array.from({ length: 8 }, (_, i) => send(`burst ${i}`)));
        expect(results.map((r) => `${r.status} ${r.code ?? ""}`.trim()).sort()).toEqual([
          "202",
          "202",
          "202",
          "202",
          "429 workload_limit",
          "429 workload_limit",
          "429 workload_limit",
          "429 workload_limit",
        ]);
      } finally {
        backendMode.delayMs = 0;
      }
      expect(busyAnswers.every((status) => status === 429)).toBe(true);
      expect(await jobsOf(user.id)).toHaveLength(4);
      expect(await heldAdvisoryLocks()).toBe(0);
    });

    it("a second chat while the first holds the user's gate gets 429 at once, without holding a connection", async () => {
      const { user, jar } = await userWithAgent();
      const ip = freshIp();
      let release: () => void = () => undefined;
      const arrived = new Promise<void>((resolveArrived) => {
        backendMode.hold = {
          arrived: resolveArrived,
          release: new Promise<void>((r) => {
            release = r;
          }),
        };
      });
      const first = chat(jar, { message: "first" }, ip);
      await arrived; // the first request holds the gate, waiting on the backend
      const pool = (webContext().db as unknown as { $client: Pool }).$client;
      try {
        // Before the fix the second request parks in pg_advisory_lock; seeing that ends the race.
        const second = chat(jar, { message: "second" }, ip);
        const outcome = await Promise.race([
          second.then((res) => ({ res })),
          untilSessionWaitsOnAdvisoryLock().then(() => ({ res: null })),
        ]);
        expect(outcome.res?.status).toBe(429);
        expect(outcome.res?.headers.get("retry-after")).toBe("1");
        expect(await outcome.res?.json()).toEqual({
          error: "another chat message is being queued; try again shortly",
          code: "workload_busy",
          retryAfterSeconds: 1,
        });
        // Only the first request's connection is checked out; nobody waits for one or for the lock.
        expect(pool.totalCount - pool.idleCount).toBe(1);
        expect(pool.waitingCount).toBe(0);
        expect(await sessionsWaitingOnAdvisoryLock()).toBe(0);
      } finally {
        release();
      }
      expect((await first).status).toBe(202);
      expect(await heldAdvisoryLocks()).toBe(0);
      expect((await chat(jar, { message: "second" }, ip)).status).toBe(202);
      expect((await jobsOf(user.id)).map((j) => j.payload.message).sort()).toEqual(["first", "second"]);
    });
  });
});

describe("GET /api/jobs/:jobId", () => {
  it("returns the user's job in the backend's job shape, following its state", async () => {
    const { user, jar, agent } = await userWithAgent();
    const queued = await chat(jar, { message: "status?" }, freshIp());
    const { jobId } = await queued.json();
    const res = await getJob(jobId, jar);
    expect(res.status).toBe(200);
    const body = await res.json();
    const [row] = await jobsOf(user.id);
    expect(body).toEqual({ job: backendJobJson(row) });
    expect(Object.keys(body.job).sort()).toEqual(
      [
        "id",
        "userId",
        "agentId",
        "lane",
        "jobType",
        "status",
        "priority",
        "attempts",
        "maxAttempts",
        "runAt",
        "lockedAt",
        "startedAt",
        "completedAt",
        "error",
        "result",
        "progress",
        "payload",
        "createdAt",
        "updatedAt",
      ].sort(),
    );
    expect(body.job).toMatchObject({
      id: jobId,
      userId: user.id,
      agentId: agent.id,
      status: "queued",
      result: null,
      payload: { message: "status?" },
    });

    const completedAt = new Date("2026-11-21T10:00:05.000Z");
    await webContext()
      .db.update(platformJobs)
      .set({
        status: "completed",
        attempts: 1,
        completedAt,
        result: { reply: "fine", model: "m", usage: null },
      })
      .where(eq(platformJobs.id, jobId));
    const done = await (await getJob(jobId, jar)).json();
    expect(done.job).toMatchObject({
      status: "completed",
      attempts: 1,
      completedAt: completedAt.toISOString(),
      result: { reply: "fine", model: "m", usage: null },
    });
  });

  it("404 for another user's job, a job of no user, and an unknown id; 401 without a session", async () => {
    const owner = await userWithAgent();
    const { jobId } = await (await chat(owner.jar, { message: "mine" }, freshIp())).json();
    const stranger = await signedInUser();
    const notFound = { error: "job not found", code: "job_not_found" };

    const res = await getJob(jobId, stranger.jar);
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual(notFound);

    const systemJob = `job_${Date.now()}_system0001`;
    await webContext().db.insert(platformJobs).values({
      id: systemJob,
      lane: "recovery",
      jobType: "runtime_sync",
      payload: {},
    });
    expect((await getJob(systemJob, stranger.jar)).status).toBe(404);

    const unknown = await getJob("job_1700000000000_zzzzzzzzzz", owner.jar);
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual(notFound);

    const anonymous = await getJob(jobId);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: "sign in first", code: "unauthorized" });

    expect((await getJob(jobId, owner.jar)).status).toBe(200);
  });
});
