/**
 * End to end: the web's chat route → the real backend (in-process, on a loopback port) → its job worker →
 * a fake agent runtime (loopback) → the result read back through `GET /api/jobs/:jobId`. The worker runs
 * on a clock that the tests move forward, so the 30 s and 60 s retry backoffs pass without waiting.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createLogger, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { startFakeAgentRuntime } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { agents, platformJobs } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it, vi } from "vitest";
import { POST as CHAT } from "@/app/api/gateway/chat/route";
import { GET as GET_JOB } from "@/app/api/jobs/[jobId]/route";
import { createApp } from "../../../backend/src/app";
import { loadBackendConfig } from "../../../backend/src/config";
import { platformProcessors } from "../../../backend/src/job-processors";
import type { QueueClock } from "../../../backend/src/platform-jobs/sql";
import type { PlatformJobJson } from "../../../backend/src/platform-jobs/types";
import { createJobWorker } from "../../../backend/src/platform-jobs/worker";
import { call, makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";

const INTERNAL_API_KEY = "e2e-internal-key-0123456789abcdef";
const HMAC_SECRET = "e2e-hmac-secret-0123456789abcdef";
const DATA_ENCRYPTION_KEY = "c0ffee".repeat(10).concat("c0ff");
const GATEWAY_TOKEN = randomBytes(32).toString("hex");

const runtime = await startFakeAgentRuntime({
  token: GATEWAY_TOKEN,
  reply: (messages) => `runtime heard: ${messages.at(-1)?.content}`,
});

// The real backend: its HTTP app and its job worker, sharing one pool on this file's database.
const backendConfig = loadBackendConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  DATA_ENCRYPTION_KEY,
  LOG_LEVEL: "silent",
  JOB_POLL_INTERVAL_MS: "50",
});
const logger = createLogger("chat-e2e", backendConfig.LOG_LEVEL);
const database = connectDatabase(backendConfig.DATABASE_URL, {
  applicationName: "chat-e2e-backend",
  max: 10,
});
const server = createServer(createApp({ config: backendConfig, database, logger }));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const backendUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

/** The worker's time: the wall clock plus what the tests skipped (retry backoffs). */
let skippedMs = 0;
const workerClock: QueueClock = { now: () => new Date(Date.now() + skippedMs) };
const worker = createJobWorker({
  connectionString: backendConfig.DATABASE_URL,
  processors: platformProcessors({ db: database.db, dataEncryptionKey: backendConfig.DATA_ENCRYPTION_KEY }),
  logger,
  concurrency: 4,
  pollIntervalMs: backendConfig.JOB_POLL_INTERVAL_MS,
  staleAfterMs: backendConfig.JOB_STALE_AFTER_MS,
  shutdownGraceMs: 2_000,
  clock: workerClock,
});
await worker.start();

useWebTestContext({ BACKEND_URL: backendUrl, INTERNAL_API_KEY, HMAC_SECRET, DATA_ENCRYPTION_KEY });
afterAll(async () => {
  await worker.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await database.close();
  await runtime.close();
});

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
let ipCounter = 0;

/** A user whose agent is the fake runtime: from now on it proves to be that agent (one wrapper, one agent). */
async function userWithAgent() {
  const signedIn = await signedInUser();
  const id = `agt_${randomBytes(8).toString("hex")}`;
  runtime.adminPassword = wrapperAdminPassword(DATA_ENCRYPTION_KEY, id, GATEWAY_TOKEN);
  const [agent] = await webContext()
    .db.insert(agents)
    .values({
      id,
      userId: signedIn.user.id,
      name: "Runner",
      url: runtime.url,
      gatewayTokenEncrypted: sealGatewayToken(DATA_ENCRYPTION_KEY, GATEWAY_TOKEN),
      status: "running",
    })
    .returning();
  return { ...signedIn, agent, ip: `192.0.2.${++ipCounter}` };
}

function chat(jar: Jar, message: string, ip: string) {
  return call(CHAT, { method: "POST", path: "/api/gateway/chat", json: { message }, jar, ip });
}

async function readJob(jobId: string, jar: Jar): Promise<PlatformJobJson> {
  const res = await GET_JOB(makeRequest({ path: `/api/jobs/${jobId}`, jar }), {
    params: Promise.resolve({ jobId }),
  });
  expect(res.status).toBe(200);
  return (await res.json()).job;
}

/** Polls `GET /api/jobs/:jobId` until the job satisfies `done`. */
async function waitForJob(jobId: string, jar: Jar, done: (job: PlatformJobJson) => boolean) {
  return vi.waitFor(
    async () => {
      const job = await readJob(jobId, jar);
      if (!done(job)) throw new Error(`job ${jobId} is ${job.status} after ${job.attempts} attempts`);
      return job;
    },
    { timeout: 15_000, interval: 25 },
  );
}

async function enqueue(jar: Jar, message: string, ip: string): Promise<string> {
  const res = await chat(jar, message, ip);
  expect(res.status).toBe(202);
  return (await res.json()).jobId;
}

describe("chat end to end through the real backend and worker", () => {
  it("202, then the job completes with the runtime's reply; the runtime saw the agent's gateway token", async () => {
    const { user, jar, agent, ip } = await userWithAgent();
    const res = await chat(jar, "hello there", ip);
    expect(res.status).toBe(202);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      queued: true,
      jobId: expect.stringMatching(/^job_\d{13}_[0-9a-z]{10}$/),
      status: "queued",
      agentId: agent.id,
      agentName: "Runner",
    });

    const job = await waitForJob(body.jobId, jar, (j) => j.status === "completed");
    expect(job).toMatchObject({
      id: body.jobId,
      userId: user.id,
      agentId: agent.id,
      jobType: "gateway_chat_completion",
      lane: "runtime_exec",
      status: "completed",
      attempts: 1,
      maxAttempts: 3,
      error: null,
      result: {
        reply: "runtime heard: hello there",
        model: "openclaw",
        usage: { prompt_tokens: 2, completion_tokens: 4, total_tokens: 6 },
      },
    });
    expect(job.completedAt).not.toBeNull();

    const seen = runtime.completions.filter((c) => c.messages.at(-1)?.content === "hello there");
    expect(seen).toHaveLength(1);
    expect(seen[0].authorization).toBe(`Bearer ${GATEWAY_TOKEN}`);
    expect(seen[0].messages).toEqual([{ role: "user", content: "hello there" }]);

    // The web shows exactly what the backend's own job endpoint shows.
    const fromBackend = await fetch(`${backendUrl}/api/platform-jobs/${body.jobId}`, {
      headers: { authorization: `Bearer ${INTERNAL_API_KEY}` },
    });
    expect(await fromBackend.json()).toEqual({ job });
    // The token went from the database to the runtime; it never entered the job.
    expect(JSON.stringify(job)).not.toContain(GATEWAY_TOKEN);
  });

  it("the gate frees its slots when the jobs complete", async () => {
    const { jar, ip } = await userWithAgent();
    // The runtime answers nothing until the fifth message was refused: the four jobs hold their slots.
    const release = runtime.holdCompletions();
    const ids: string[] = [];
    try {
      for (let i = 0; i < 4; i++) ids.push(await enqueue(jar, `busy ${i}`, ip));
      const blocked = await chat(jar, "one more", ip);
      expect(blocked.status).toBe(429);
      expect(await blocked.json()).toMatchObject({ code: "workload_limit", retryAfterSeconds: 5 });
    } finally {
      release();
    }
    for (const id of ids) await waitForJob(id, jar, (j) => j.status === "completed");
    const after = await enqueue(jar, "one more", ip);
    const done = await waitForJob(after, jar, (j) => j.status === "completed");
    expect(done.result).toMatchObject({ reply: "runtime heard: one more" });
  });

  it("when the runtime fails every call the job ends failed after 3 attempts, and its slots free", async () => {
    const { jar, agent, ip } = await userWithAgent();
    runtime.failWith(503, "runtime is down");
    const long = "x".repeat(900);
    let jobId: string;
    try {
      jobId = await enqueue(jar, long, ip);
      const second = await enqueue(jar, `${long}!`, ip);
      // Two long messages take all 4 slots.
      expect((await chat(jar, "short", ip)).status).toBe(429);

      // Attempt 1 fails: back to queued, 30 s later (both jobs, before the test moves the clock).
      let job = await waitForJob(jobId, jar, (j) => j.attempts === 1 && j.status === "queued");
      await waitForJob(second, jar, (j) => j.attempts === 1 && j.status === "queued");
      expect(job.error).toContain("HTTP 503");
      expect(new Date(job.runAt).getTime() - new Date(job.updatedAt).getTime()).toBe(30_000);
      // A job waiting for its retry still holds its slots.
      expect((await chat(jar, "short", ip)).status).toBe(429);

      skippedMs += 31_000;
      job = await waitForJob(jobId, jar, (j) => j.attempts === 2 && j.status === "queued");
      await waitForJob(second, jar, (j) => j.attempts === 2 && j.status === "queued");
      skippedMs += 61_000;
      job = await waitForJob(jobId, jar, (j) => j.status === "failed");
      expect(job).toMatchObject({
        status: "failed",
        attempts: 3,
        maxAttempts: 3,
        agentId: agent.id,
        result: null,
      });
      expect(job.error).toContain("HTTP 503");
      expect(job.completedAt).not.toBeNull();
      await waitForJob(second, jar, (j) => j.status === "failed");
    } finally {
      runtime.failWith(null);
    }
    const calls = runtime.completions.filter((c) => c.messages.at(-1)?.content === long);
    expect(calls).toHaveLength(3);
    expect(calls.every((c) => c.authorization === `Bearer ${GATEWAY_TOKEN}`)).toBe(true);

    // Both failed jobs released their slots: a long message (2) and two short ones (1 + 1) fit again.
    const again = await enqueue(jar, long, ip);
    await enqueue(jar, "short a", ip);
    await enqueue(jar, "short b", ip);
    const done = await waitForJob(again, jar, (j) => j.status === "completed");
    expect(done.result).toMatchObject({ reply: `runtime heard: ${long}` });
    const rows = await webContext().db.select().from(platformJobs).where(eq(platformJobs.id, jobId));
    expect(rows[0].status).toBe("failed");
  });
});

describe("fake agent runtime", () => {
  it("refuses a wrong gateway token with 401 and records the request", async () => {
    const before = runtime.requests.length;
    const res = await fetch(`${runtime.url}/v1/chat/completions`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer wrong" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { message: "invalid gateway token", type: "invalid_api_key" },
    });
    // Jobs of the test before may still be reaching the runtime: count only this request's token.
    const wrong = runtime.requests.slice(before).filter((r) => r.headers.authorization === "Bearer wrong");
    expect(wrong).toHaveLength(1);
    expect(wrong[0]).toMatchObject({ method: "POST", path: "/v1/chat/completions" });
  });
});
