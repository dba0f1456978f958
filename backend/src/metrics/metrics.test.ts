/**
 * `GET /metrics` on the backend, served as server.ts serves it (the classify hook ahead of Express): each
 * test scrapes, acts, scrapes again and checks by how much the named series moved.
 */
import { createLogger, newId, sealGatewayToken } from "@svc/common";
import { metricValue } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateGatewayToken } from "../agents/tokens";
import { createPermissionBus } from "../permissions/bus";
import { databaseClock, enqueueJob, getJob } from "../platform-jobs/sql";
import type { JobProcessor } from "../platform-jobs/types";
import { createJobWorker } from "../platform-jobs/worker";
import {
  createUser,
  headersFor,
  DATA_ENCRYPTION_KEY as KEY,
  testConfig,
  testDatabase,
  testListener,
} from "../testing";

const logger = createLogger("metrics-test", "silent");
const config = testConfig({ DATA_ENCRYPTION_KEY: KEY });
const database = testDatabase();
const bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
const app = testListener({ config, logger, permissionBus: bus });
const guarded = testListener({ env: { DATA_ENCRYPTION_KEY: KEY, METRICS_TOKEN: "scrape-token-1" }, logger });

const userId = newId("usr");
const agentId = newId("agt");
const gatewayToken = generateGatewayToken();
const userHeaders = headersFor({ id: userId, email: `${userId}@example.com` });

beforeAll(async () => {
  await bus.start();
  await createUser({ id: userId, name: "U" });
  await database.db
    .insert(agents)
    .values({ id: agentId, userId, name: "A", gatewayTokenEncrypted: sealGatewayToken(KEY, gatewayToken) });
});
afterAll(async () => {
  await bus.stop();
});

async function scrape(): Promise<string> {
  const res = await request(app).get("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/plain; version=0\.0\.4/);
  return res.text;
}

/** How much each series moved between two scrapes. */
function delta(before: string, after: string) {
  return (name: string, labels: Record<string, string> = {}) =>
    metricValue(after, name, labels) - metricValue(before, name, labels);
}

describe("GET /metrics on the backend", () => {
  it("serves the default process metrics", async () => {
    const text = await scrape();
    expect(text).toContain("# TYPE process_cpu_user_seconds_total counter");
    expect(text).toContain("# TYPE nodejs_eventloop_lag_seconds gauge");
  });

  it("counts requests by method, route template (never the raw path) and status", async () => {
    const before = await scrape();
    await request(app).get("/health");
    await request(app).get("/api/platform-jobs/job_0000000000000_missing0001").set(userHeaders).expect(404);
    await request(app).get("/api/platform-jobs/job_0000000000000_missing0002").set(userHeaders).expect(404);
    await request(app).get("/api/runtime/proxy/agt_nobody123/api/status").expect(401);
    await request(app).get("/api/no-such-route/abc123").expect(404);
    const after = await scrape();
    const moved = delta(before, after);
    expect(moved("http_requests_total", { method: "GET", route: "/health" })).toBe(1);
    const job = { method: "GET", route: "/api/platform-jobs/:jobId", status: "404" };
    expect(moved("http_requests_total", job)).toBe(2);
    expect(moved("http_request_duration_seconds_count", job)).toBe(2);
    expect(moved("http_requests_total", { route: "/api/runtime/proxy/:agentId/*", status: "401" })).toBe(1);
    expect(moved("http_requests_total", { method: "GET", route: "unmatched", status: "404" })).toBe(1);
    expect(after).not.toContain("missing0001");
    expect(after).not.toContain("agt_nobody123");
    expect(after).not.toContain("abc123");
  });

  it("counts the hook (answered ahead of Express) and permission requests by tier and decision", async () => {
    const before = await scrape();
    const hook = await request(app)
      .post("/api/hooks/classify")
      .set({ authorization: `Bearer ${gatewayToken}` })
      .send({ agentId, toolName: "read", toolInput: { path: "notes.txt" } });
    expect(hook.body).toMatchObject({ allow: true, tier: "safe" });
    await request(app)
      .post("/api/hooks/classify")
      .set({ authorization: `Bearer ${gatewayToken}` })
      .send({ agentId, toolName: "bash", toolInput: { command: "rm -rf /" } })
      .expect(200);
    const queued = await request(app)
      .post("/api/permissions/classify")
      .set(userHeaders)
      .send({ agentId, toolName: "bash", toolInput: { command: "npm install left-pad" } });
    expect(queued.body).toMatchObject({ allow: false, tier: "dangerous", requestId: expect.any(String) });
    await request(app)
      .post("/api/permissions")
      .set(userHeaders)
      .send({ requestId: queued.body.requestId, decision: "approve_always" })
      .expect(200);
    const after = await scrape();
    const moved = delta(before, after);
    expect(
      moved("http_requests_total", { method: "POST", route: "/api/hooks/classify", status: "200" }),
    ).toBe(2);
    expect(moved("http_request_duration_seconds_count", { route: "/api/hooks/classify" })).toBe(2);
    expect(moved("permission_requests_total", { tier: "safe", decision: "allowed" })).toBe(1);
    expect(moved("permission_requests_total", { tier: "destructive", decision: "blocked" })).toBe(1);
    expect(moved("permission_requests_total", { tier: "dangerous", decision: "queued" })).toBe(1);
    expect(moved("permission_requests_total", { tier: "dangerous", decision: "approve_always" })).toBe(1);
    expect(moved("permission_requests_total")).toBe(4);
  });

  it("reports the queue by lane and status, and a worker's run moves the job series", async () => {
    await database.pool.query("delete from platform_jobs");
    const empty = await scrape();
    expect(metricValue(empty, "platform_jobs", { lane: "runtime_exec", status: "queued" })).toBe(0);
    expect(metricValue(empty, "platform_jobs_oldest_queued_age_seconds")).toBe(0);
    const job = await enqueueJob(database.pool, databaseClock, {
      jobType: "gateway_chat_completion",
      userId,
      agentId,
      payload: { userId, agentId, gatewayUrl: "http://127.0.0.1:9", message: "hi", systemPrompt: null },
    });
    await database.pool.query(
      "update platform_jobs set created_at = now() - interval '90 seconds' where id = $1",
      [job.id],
    );
    const queued = await scrape();
    expect(metricValue(queued, "platform_jobs", { lane: "runtime_exec", status: "queued" })).toBe(1);
    expect(metricValue(queued, "platform_jobs_oldest_queued_age_seconds")).toBeGreaterThanOrEqual(90);

    let finish: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const echo: JobProcessor = async () => {
      finish();
      return { ok: true };
    };
    const worker = createJobWorker({
      connectionString: config.DATABASE_URL,
      processors: { gateway_chat_completion: echo },
      logger,
      concurrency: 1,
      pollIntervalMs: 600_000,
      staleAfterMs: 600_000,
      shutdownGraceMs: 5_000,
    });
    try {
      await worker.start();
      await finished;
      // The outcome is written after the processor returns: wait for the row, then for the worker to idle.
      await expect.poll(async () => (await getJob(database.pool, job.id))?.status).toBe("completed");
    } finally {
      await worker.stop();
    }
    const after = await scrape();
    const moved = delta(queued, after);
    expect(moved("platform_jobs", { lane: "runtime_exec", status: "queued" })).toBe(-1);
    expect(moved("platform_jobs", { lane: "runtime_exec", status: "completed" })).toBe(1);
    expect(metricValue(after, "platform_jobs_oldest_queued_age_seconds")).toBe(0);
    const run = { lane: "runtime_exec", job_type: "gateway_chat_completion", outcome: "completed" };
    expect(moved("platform_job_run_duration_seconds_count", run)).toBe(1);
    expect(moved("platform_job_claim_duration_seconds_count")).toBeGreaterThanOrEqual(1);
  });

  it("with METRICS_TOKEN: 401 without the Bearer token, 200 with it", async () => {
    const none = await request(guarded).get("/metrics");
    expect(none.status).toBe(401);
    expect(none.text).not.toContain("http_requests_total");
    const wrong = await request(guarded).get("/metrics").set({ authorization: "Bearer scrape-token-2" });
    expect(wrong.status).toBe(401);
    const internal = await request(guarded).get("/metrics").set(headersFor("internal"));
    expect(internal.status).toBe(401);
    const right = await request(guarded).get("/metrics").set({ authorization: "Bearer scrape-token-1" });
    expect(right.status).toBe(200);
    expect(
      metricValue(right.text, "http_requests_total", { route: "/metrics", status: "401" }),
    ).toBeGreaterThanOrEqual(3);
  });
});
