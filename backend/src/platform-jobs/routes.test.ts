import { createLogger } from "@svc/common";
import { connectDatabase } from "@svc/db";
import request from "supertest";
import { beforeEach, describe, expect, it } from "vitest";
import { headersFor, INTERNAL_API_KEY, testApp, testDatabase } from "../testing";

const database = testDatabase();
const app = testApp();
beforeEach(() => database.pool.query("delete from platform_jobs"));

const auth = headersFor("internal");
const countJobs = async () =>
  (await database.pool.query("select count(*)::int as n from platform_jobs")).rows[0].n;
const provisionBody = { userId: "usr_1", email: "a@example.com", agentId: "agt_1" };
const chatBody = {
  userId: "usr_1",
  agentId: "agt_1",
  gatewayUrl: "http://127.0.0.1:18789",
  message: "hello",
};

describe("POST /api/platform-jobs/provision", () => {
  it("202 {success, queued, job} with defaults and a payload of only the spec's keys", async () => {
    const res = await request(app)
      .post("/api/platform-jobs/provision")
      .set(auth)
      .send({ ...provisionBody, paymentsSubscriptionId: "sub_9" });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({
      success: true,
      queued: true,
      job: {
        id: expect.stringMatching(/^job_\d{13}_[0-9a-z]{10}$/),
        userId: "usr_1",
        agentId: "agt_1",
        lane: "deploy",
        jobType: "provision_managed_runtime",
        status: "queued",
        priority: 100,
        attempts: 0,
        maxAttempts: 5,
        runAt: expect.any(String),
        lockedAt: null,
        startedAt: null,
        completedAt: null,
        error: null,
        result: null,
        progress: null,
        payload: {
          userId: "usr_1",
          agentId: "agt_1",
          plan: "solo",
          aiProvider: "openrouter",
          agentType: "creative",
          autoProvision: false,
        },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
      },
    });
    expect(JSON.stringify(res.body)).not.toContain("a@example.com");
    expect(JSON.stringify(res.body)).not.toContain("sub_9");
  });

  it.each([
    [{ email: "a@example.com", agentId: "agt_1" }, "userId is required"],
    [{ ...provisionBody, userId: 7 }, "userId must be a string"],
    [{ ...provisionBody, autoProvision: "yes" }, "autoProvision must be a boolean"],
    [{ ...provisionBody, extra: 1 }, "unknown field: extra"],
  ])("400 for %j", async (body, message) => {
    const res = await request(app).post("/api/platform-jobs/provision").set(auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: "invalid_request", message });
    expect(await countJobs()).toBe(0);
  });
});

describe("POST /api/platform-jobs/chat", () => {
  it("202 with lane runtime_exec, priority 50, 3 attempts; systemPrompt defaults to null", async () => {
    const res = await request(app).post("/api/platform-jobs/chat").set(auth).send(chatBody);
    expect(res.status).toBe(202);
    expect(res.body.job).toMatchObject({
      lane: "runtime_exec",
      jobType: "gateway_chat_completion",
      priority: 50,
      maxAttempts: 3,
      payload: { ...chatBody, systemPrompt: null },
    });
  });

  it.each([
    [{ ...chatBody, message: "" }, "message is required"],
    [{ ...chatBody, gatewayUrl: "ftp://x" }, "gatewayUrl must be an http(s) URL"],
    [{ ...chatBody, sessionKey: "s" }, "unknown field: sessionKey"],
  ])("400 for %j", async (body, message) => {
    const res = await request(app).post("/api/platform-jobs/chat").set(auth).send(body);
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
    expect(await countJobs()).toBe(0);
  });

  it("400 for bad JSON and a non-object body", async () => {
    const bad = await request(app)
      .post("/api/platform-jobs/chat")
      .set(auth)
      .set("content-type", "application/json")
      .send("{x");
    expect(bad.status).toBe(400);
    const array = await request(app).post("/api/platform-jobs/chat").set(auth).send([1]);
    expect(array.body).toEqual({ error: "invalid_request", message: "request body must be a JSON object" });
  });
});

describe("GET /api/platform-jobs/:jobId and metrics", () => {
  it("returns {job}, 404 for an unknown id, and the metrics shape", async () => {
    const created = (await request(app).post("/api/platform-jobs/chat").set(auth).send(chatBody)).body.job;
    const got = await request(app).get(`/api/platform-jobs/${created.id}`).set(auth);
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ job: created });
    const missing = await request(app).get("/api/platform-jobs/job_1_none").set(auth);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: "job_not_found", message: "no job job_1_none" });
    const metrics = await request(app).get("/api/platform-jobs/metrics").set(auth);
    expect(metrics.body).toEqual({
      counts: [{ lane: "runtime_exec", status: "queued", count: 1 }],
      oldestQueuedAgeSeconds: expect.any(Number),
    });
  });

  it("500 when the database fails: the database's error is logged, never answered", async () => {
    const dead = connectDatabase("postgres://x:y@127.0.0.1:1/none");
    const lines: string[] = [];
    const logger = createLogger("test", "error", { write: (line) => void lines.push(line) });
    const broken = testApp({ database: dead, logger });
    try {
      const read = await request(broken).get("/api/platform-jobs/job_1_x").set(auth);
      expect(read.body).toEqual({ error: "fetch_failed", message: "the job could not be read" });
      expect(lines.join("")).toContain("ECONNREFUSED");
      expect((await request(broken).get("/api/platform-jobs/metrics").set(auth)).status).toBe(500);
      expect((await request(broken).get("/api/platform-jobs/job_1_x").set(auth)).body.error).toBe(
        "fetch_failed",
      );
      const enqueue = await request(broken).post("/api/platform-jobs/chat").set(auth).send(chatBody);
      expect(enqueue.status).toBe(500);
      expect(enqueue.body.error).toBe("enqueue_failed");
    } finally {
      await dead.close();
    }
  });
});

describe("internal key", () => {
  it("401 without the header or the Bearer prefix, 403 on mismatch, 500 when unset", async () => {
    expect((await request(app).get("/api/platform-jobs/metrics")).status).toBe(401);
    expect(
      (await request(app).get("/api/platform-jobs/metrics").set("authorization", INTERNAL_API_KEY)).status,
    ).toBe(401);
    const wrong = await request(app).get("/api/platform-jobs/metrics").set("authorization", "Bearer nope");
    expect(wrong.status).toBe(403);
    const unset = testApp({ env: { INTERNAL_API_KEY: undefined } });
    expect((await request(unset).get("/api/platform-jobs/metrics").set(auth)).status).toBe(500);
  });
});
