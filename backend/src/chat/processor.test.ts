/**
 * Chat jobs through the real worker and the real backend, the agent being a runtime that behaves as OpenClaw
 * does (the fake agent runtime with `provider`): it asks the backend's `/api/ai/chat/completions` with its
 * gateway token, keeps a session per `user`, and reports a failed run as a 200 reply. Jobs whose failure
 * retrying cannot change fail at once (an agent without a gateway token, a platform without an AI
 * provider); a failure that may pass (the provider failing with a 5xx) waits for its retry.
 */
import { randomBytes } from "node:crypto";
import { createLogger, newId, wrapperAdminPassword } from "@svc/common";
import {
  type FakeAgentRuntime,
  type FakeAiProvider,
  startAgentImpostor,
  startFakeAgentRuntime,
  startFakeAiProvider,
} from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gatewayTokenStore } from "../agents/tokens";
import { platformProcessors } from "../job-processors";
import { databaseClock, enqueueJob, getJob } from "../platform-jobs/sql";
import { PermanentJobError } from "../platform-jobs/types";
import { createJobWorker, type JobWorker } from "../platform-jobs/worker";
import { createUser, DATA_ENCRYPTION_KEY, serveApp, testApp, testDatabase } from "../testing";
import { chatSessionOf, NO_AI_PROVIDER_MESSAGE } from "./processor";

const url = process.env.DATABASE_URL as string;
const database = testDatabase();
const logger = createLogger("chat-processor-test", "silent");

let provider: FakeAiProvider;
const backends: Array<{ close(): Promise<void>; url: string }> = [];
const runtimes: FakeAgentRuntime[] = [];
let worker: JobWorker | undefined;

beforeAll(async () => {
  provider = await startFakeAiProvider();
});
afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.close()));
  await Promise.all(backends.map((b) => b.close()));
  await provider.close();
});

/** The real backend app on loopback with `env`. */
async function startBackend(env: Record<string, string>) {
  const backend = await serveApp(testApp({ env: { DATA_ENCRYPTION_KEY, ...env } }));
  backends.push(backend);
  return backend;
}

/**
 * A user with an agent whose runtime asks `backendUrl`'s AI proxy the way OpenClaw does; `withToken: false`:
 * the platform holds no gateway token for it.
 */
async function agentBehind(backendUrl: string, { withToken = true } = {}) {
  const owner = await createUser({ plan: "pro" });
  const token = randomBytes(32).toString("hex");
  const agentId = newId("agt");
  const runtime = await startFakeAgentRuntime({
    token,
    // Its wrapper's admin password: what it proves it holds before the platform sends it the token.
    adminPassword: wrapperAdminPassword(DATA_ENCRYPTION_KEY, agentId, token),
    provider: { baseUrl: `${backendUrl}/api/ai`, model: "openai/gpt-4o-mini" },
  });
  runtimes.push(runtime);
  await database.db
    .insert(agents)
    .values({ id: agentId, userId: owner.id, name: "Clawed", url: runtime.url, status: "running" });
  // Through the process-wide store, as provisioning writes it, so the backend knows the new token at once.
  if (withToken) await gatewayTokenStore(database.db, DATA_ENCRYPTION_KEY).write(agentId, token);
  return { owner, agentId, runtime };
}

function startWorker() {
  worker = createJobWorker({
    connectionString: url,
    processors: platformProcessors({ db: database.db, dataEncryptionKey: DATA_ENCRYPTION_KEY }),
    logger,
    concurrency: 2,
    pollIntervalMs: 100,
    staleAfterMs: 600_000,
    shutdownGraceMs: 5_000,
  });
  return worker.start();
}

async function chatJob(userId: string, agentId: string, message: string) {
  return enqueueJob(database.pool, databaseClock, {
    jobType: "gateway_chat_completion",
    userId,
    agentId,
    payload: { userId, agentId, gatewayUrl: "http://127.0.0.1:9", message, systemPrompt: null },
  });
}

async function settled(jobId: string) {
  return vi.waitFor(
    async () => {
      const job = await getJob(database.pool, jobId);
      if (job && job.attempts >= 1 && job.status !== "running" && job.error !== null) return job;
      if (job?.status === "completed") return job;
      throw new Error(`job ${jobId} did not settle: ${JSON.stringify(job)}`);
    },
    { timeout: 30_000, interval: 25 },
  );
}

describe("chat jobs that retrying cannot fix", () => {
  it("no AI provider configured (reported inside the runtime's 200 reply): failed after the first attempt, with the error in words", async () => {
    const backend = await startBackend({}); // no AI_PROVIDER_KEY
    const { owner, agentId, runtime } = await agentBehind(backend.url);
    await startWorker();
    const after = await settled((await chatJob(owner.id, agentId, "hello?")).id);
    expect(after).toMatchObject({
      status: "failed",
      attempts: 1,
      maxAttempts: 3,
      error: NO_AI_PROVIDER_MESSAGE,
      result: null,
    });
    expect(after.error).toBe("no AI provider is configured: set AI_PROVIDER_URL and AI_PROVIDER_KEY");
    expect(after.completedAt).not.toBeNull();
    // The runtime was asked once; the words are the backend's, which refused for want of a provider.
    expect(runtime.completions).toHaveLength(1);
  }, 60_000);

  it("the agent has no gateway token: failed after the first attempt; the agent is not called", async () => {
    const backend = await startBackend({ AI_PROVIDER_URL: provider.url, AI_PROVIDER_KEY: provider.apiKey });
    const { owner, agentId, runtime } = await agentBehind(backend.url, { withToken: false });
    await startWorker();
    const after = await settled((await chatJob(owner.id, agentId, "hi")).id);
    expect(after).toMatchObject({ status: "failed", attempts: 1, error: "the agent has no gateway token" });
    expect(runtime.requests).toEqual([]);
  }, 60_000);
  it("a processor's PermanentJobError fails any job at once; a plain error leaves the retries", async () => {
    const owner = await createUser();
    worker = createJobWorker({
      connectionString: url,
      processors: {
        gateway_chat_completion: async (job) => {
          if (job.payload.message === "permanent") throw new PermanentJobError("cannot ever work");
          throw new Error("may work later");
        },
      },
      logger,
      concurrency: 2,
      pollIntervalMs: 100,
      staleAfterMs: 600_000,
      shutdownGraceMs: 5_000,
    });
    await worker.start();
    const permanent = await settled((await chatJob(owner.id, "agt_x", "permanent")).id);
    expect(permanent).toMatchObject({ status: "failed", attempts: 1, error: "cannot ever work" });
    const transient = await settled((await chatJob(owner.id, "agt_x", "transient")).id);
    expect(transient).toMatchObject({ status: "queued", attempts: 1, error: "may work later" });
  });
});

describe("chat jobs on a runtime that behaves as OpenClaw does", () => {
  it("sends the user's session: the second message reaches the provider with the first exchange", async () => {
    const backend = await startBackend({ AI_PROVIDER_URL: provider.url, AI_PROVIDER_KEY: provider.apiKey });
    const { owner, agentId, runtime } = await agentBehind(backend.url);
    await startWorker();
    provider.setResponder((_body, { lastUserText }) => ({ content: `noted: ${lastUserText}` }));
    try {
      const first = await settled((await chatJob(owner.id, agentId, "my name is Ada")).id);
      expect(first).toMatchObject({ status: "completed", result: { reply: "noted: my name is Ada" } });
      const second = await settled((await chatJob(owner.id, agentId, "what is my name?")).id);
      expect(second).toMatchObject({ status: "completed", result: { reply: "noted: what is my name?" } });
    } finally {
      provider.setResponder(null);
    }
    expect(runtime.completions.map((c) => [c.body.model, c.body.user])).toEqual([
      ["openclaw", chatSessionOf(owner.id)],
      ["openclaw", chatSessionOf(owner.id)],
    ]);
    expect(chatSessionOf(owner.id)).toBe(`platform:${owner.id}`);
    // The provider saw the first exchange again in the second request: the runtime kept one session.
    const sent = provider.requests.at(-1)?.body?.messages as Array<{ role: string; content: unknown }>;
    expect(sent.slice(1).map((m) => [m.role, JSON.stringify(m.content)])).toEqual([
      ["user", JSON.stringify([{ type: "text", text: "my name is Ada" }])],
      ["assistant", JSON.stringify("noted: my name is Ada")],
      ["user", JSON.stringify([{ type: "text", text: "what is my name?" }])],
    ]);
  }, 60_000);

  it("a provider failure, which the runtime answers with 200, fails the attempt with the reason", async () => {
    const backend = await startBackend({ AI_PROVIDER_URL: provider.url, AI_PROVIDER_KEY: provider.apiKey });
    const { owner, agentId, runtime } = await agentBehind(backend.url);
    provider.setFailure({ status: 500 });
    try {
      const retried = await chatJob(owner.id, agentId, "hello?");
      // The last attempt: the job fails instead of waiting for the next one.
      const last = await chatJob(owner.id, agentId, "anyone?");
      await database.pool.query("update platform_jobs set max_attempts = 1 where id = $1", [last.id]);
      await startWorker();
      const reason = "the agent's AI provider failed: 502 the AI provider (openrouter) failed with HTTP 500";
      const waiting = await settled(retried.id);
      expect(waiting).toMatchObject({ status: "queued", attempts: 1, error: reason, result: null });
      expect(waiting.completedAt).toBeNull();
      expect(waiting.runAt.getTime()).toBeGreaterThan(waiting.updatedAt.getTime());
      expect(await settled(last.id)).toMatchObject({
        status: "failed",
        attempts: 1,
        error: reason,
        result: null,
      });
    } finally {
      provider.setFailure(null);
    }
    // The runtime did answer 200, with the error as the reply.
    expect(runtime.completions).toHaveLength(2);
  }, 60_000);
});

describe("chat jobs reach only the agent meant", () => {
  it("an agent whose stored status is not running is not called: the attempt fails (it may run again)", async () => {
    const backend = await startBackend({ AI_PROVIDER_URL: provider.url, AI_PROVIDER_KEY: provider.apiKey });
    const { owner, agentId, runtime } = await agentBehind(backend.url);
    await database.db.update(agents).set({ status: "stopped" }).where(eq(agents.id, agentId));
    await startWorker();
    const after = await settled((await chatJob(owner.id, agentId, "are you there?")).id);
    expect(after).toMatchObject({
      status: "queued",
      attempts: 1,
      error: `agent ${agentId} is stopped, not running: nothing was sent to it`,
    });
    expect(runtime.requests).toEqual([]);
  }, 60_000);

  it("another agent holding the port of the agent's stopped wrapper never receives the token", async () => {
    const backend = await startBackend({ AI_PROVIDER_URL: provider.url, AI_PROVIDER_KEY: provider.apiKey });
    const { owner, agentId, runtime } = await agentBehind(backend.url);
    await startWorker();
    expect(await settled((await chatJob(owner.id, agentId, "first")).id)).toMatchObject({
      status: "completed",
    });
    // The wrapper stops; a co-hosted agent binds its port; the row still says running.
    await runtime.close();
    const impostor = await startAgentImpostor({ port: runtime.port });
    try {
      const after = await settled((await chatJob(owner.id, agentId, "second")).id);
      expect(after).toMatchObject({ status: "queued", attempts: 1 });
      expect(impostor.credentials).toEqual([]);
      expect(new Set(impostor.requests.map((r) => r.path.split("?")[0]))).toEqual(new Set(["/api/identity"]));
    } finally {
      await impostor.close();
    }
  }, 60_000);
});
