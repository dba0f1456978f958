import { createLogger, newId, sealGatewayToken } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { agents, users } from "@svc/db/schema";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gatewayChatProcessor } from "../chat/processor";
import type { JobProcessor, ProcessorRegistry } from "./processors";
import { databaseClock, enqueueJob, getJob } from "./queue";
import { platformProcessors } from "./registry";
import { createJobWorker, type JobWorker } from "./worker";

const url = process.env.DATABASE_URL as string;
const database = connectDatabase(url);
const pool = database.pool;
const logger = createLogger("worker-test", "silent");
const DATA_KEY = "ab".repeat(32);
let worker: JobWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});
afterAll(() => database.close());
beforeEach(() => pool.query("delete from platform_jobs"));

function startWorker(
  processors: ProcessorRegistry,
  overrides: Partial<Parameters<typeof createJobWorker>[0]> = {},
) {
  worker = createJobWorker({
    connectionString: url,
    processors,
    logger,
    concurrency: 2,
    // A poll this slow never fires in a test: jobs only start because of NOTIFY.
    pollIntervalMs: 600_000,
    staleAfterMs: 600_000,
    shutdownGraceMs: 5_000,
    ...overrides,
  });
  return worker.start();
}

const chatJob = (message = "hi", userId = "usr_w", agentId = "agt_w") =>
  enqueueJob(pool, databaseClock, {
    jobType: "gateway_chat_completion",
    userId,
    agentId,
    payload: { userId, agentId, gatewayUrl: "http://127.0.0.1:9", message, systemPrompt: null },
  });

async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`condition not met: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("job worker", () => {
  it("starts a job on NOTIFY (no poll) and stores the processor's result", async () => {
    const echo: JobProcessor = async (job) => ({ echoed: job.payload.message });
    await startWorker({ gateway_chat_completion: echo });
    const job = await chatJob("ping");
    const done = await until(
      () => getJob(pool, job.id),
      (j) => j?.status === "completed",
    );
    expect(done).toMatchObject({ status: "completed", attempts: 1, result: { echoed: "ping" }, error: null });
  });

  it("a throwing processor makes the attempt fail with its message and schedules the retry", async () => {
    await startWorker({
      gateway_chat_completion: async () => {
        throw new Error("agent is busy");
      },
    });
    const job = await chatJob();
    const after = await until(
      () => getJob(pool, job.id),
      (j) => j?.attempts === 1 && j.status === "queued",
    );
    expect(after?.error).toBe("agent is busy");
    expect((after?.runAt.getTime() ?? 0) - (after?.updatedAt.getTime() ?? 0)).toBe(30_000);
  });

  it("runtime job types fail with a clear error when the worker has no hosting platform", async () => {
    await startWorker(platformProcessors({ db: database.db, dataEncryptionKey: DATA_KEY }));
    const job = await enqueueJob(pool, databaseClock, {
      jobType: "provision_managed_runtime",
      payload: { userId: "usr_w", agentId: "agt_w" },
    });
    const after = await until(
      () => getJob(pool, job.id),
      (j) => j?.attempts === 1 && j.status === "queued",
    );
    expect(after?.error).toBe("no hosting platform is configured for this backend");
  });

  it("runs at most `concurrency` jobs at once", async () => {
    let running = 0;
    let peak = 0;
    const slow: JobProcessor = async () => {
      running++;
      peak = Math.max(peak, running);
      await new Promise((r) => setTimeout(r, 30));
      running--;
      return {};
    };
    await startWorker({ gateway_chat_completion: slow }, { concurrency: 3 });
    const jobs = await Promise.all(Array.from({ length: 12 }, () => chatJob()));
    await until(
      async () =>
        (await pool.query("select count(*)::int as n from platform_jobs where status = 'completed'")).rows[0]
          .n,
      (n) => n === jobs.length,
    );
    expect(peak).toBe(3);
  });

  it("on stop, lets running jobs finish within the grace period and releases the rest to queued", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const started: string[] = [];
    await startWorker(
      {
        gateway_chat_completion: async (job) => {
          started.push(job.payload.message as string);
          if (job.payload.message === "quick") {
            await new Promise((r) => setTimeout(r, 50));
            return { quick: true };
          }
          await gate;
          return { late: true };
        },
      },
      { shutdownGraceMs: 300 },
    );
    const quick = await chatJob("quick");
    const stuck = await chatJob("stuck");
    await until(
      async () => started.length,
      (n) => n === 2,
    );
    await (worker as JobWorker).stop();
    release();
    expect(await getJob(pool, quick.id)).toMatchObject({ status: "completed", result: { quick: true } });
    expect(await getJob(pool, stuck.id)).toMatchObject({
      status: "queued",
      attempts: 0,
      lockToken: null,
      result: null,
    });
    // The released job's late finish cannot write anything.
    await new Promise((r) => setTimeout(r, 50));
    expect(await getJob(pool, stuck.id)).toMatchObject({ status: "queued", result: null });
  });
});

describe("gateway_chat_completion", () => {
  let runtime: FakeUpstream;
  const seen: Array<{ auth?: string; body: unknown }> = [];
  beforeAll(async () => {
    runtime = await startFakeUpstream((req, res, body) => {
      seen.push({ auth: req.headers.authorization, body: JSON.parse(body.toString()) });
      if (req.url !== "/v1/chat/completions") return sendJson(res, 404, { error: "no" });
      const payload = JSON.parse(body.toString());
      if (payload.messages.at(-1).content === "fail") return sendJson(res, 503, { error: "overloaded" });
      sendJson(res, 200, {
        id: "cmpl-1",
        model: "openclaw-test",
        choices: [{ message: { role: "assistant", content: `echo: ${payload.messages.at(-1).content}` } }],
        usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
      });
    });
    await database.db
      .insert(users)
      .values({ id: "usr_chat", email: "chat@example.com", name: "Chat", referralCode: "CHAT1" });
    await database.db.insert(agents).values({
      id: "agt_chat",
      userId: "usr_chat",
      name: "Agent",
      url: runtime.url,
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "gw-token-123"),
    });
  });
  afterAll(() => runtime.close());

  const runChat = gatewayChatProcessor({ db: database.db, dataEncryptionKey: DATA_KEY });
  const jobFor = (message: string, systemPrompt: string | null = null, agentId = "agt_chat") =>
    ({
      id: newId("job"),
      payload: { userId: "usr_chat", agentId, gatewayUrl: runtime.url, message, systemPrompt },
    }) as never;
  const ctx = { signal: new AbortController().signal, logger };

  it("posts an OpenAI-compatible request with the agent's token and returns {reply, model, usage}", async () => {
    const result = await runChat(jobFor("hello", "be brief"), ctx);
    expect(result).toEqual({
      reply: "echo: hello",
      model: "openclaw-test",
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    });
    expect(seen.at(-1)).toEqual({
      auth: "Bearer gw-token-123",
      body: {
        model: "openclaw",
        messages: [
          { role: "system", content: "be brief" },
          { role: "user", content: "hello" },
        ],
      },
    });
  });

  it("fails with a clear message on a non-2xx answer, a missing agent or a missing token", async () => {
    await expect(runChat(jobFor("fail"), ctx)).rejects.toThrow(
      'the agent gateway answered HTTP 503: {"error":"overloaded"}',
    );
    await expect(runChat(jobFor("x", null, "agt_none"), ctx)).rejects.toThrow("agent agt_none not found");
    const noKey = gatewayChatProcessor({ db: database.db, dataEncryptionKey: undefined });
    await expect(noKey(jobFor("x"), ctx)).rejects.toThrow("the agent has no gateway token");
  });

  it("times out after the configured time", async () => {
    const silent = await startFakeUpstream(() => undefined);
    try {
      const slow = gatewayChatProcessor({ db: database.db, dataEncryptionKey: DATA_KEY, timeoutMs: 200 });
      const job = {
        id: "j",
        payload: {
          userId: "usr_chat",
          agentId: "agt_chat",
          gatewayUrl: silent.url,
          message: "x",
          systemPrompt: null,
        },
      };
      await expect(slow(job as never, ctx)).rejects.toThrow("the agent gateway did not answer within 0.2 s");
    } finally {
      await silent.close();
    }
  });
});
