import {
  AGENT_MAX_RESPONSE_BYTES,
  createLogger,
  ManualClock,
  newId,
  sealGatewayToken,
  wrapperAdminPassword,
} from "@svc/common";
import { answerAgentIdentity, type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { gatewayChatProcessor } from "../chat/processor";
import { platformProcessors } from "../job-processors";
import { createUser, testDatabase } from "../testing";
import { ManualTimers } from "../timers";
import { chatJobSchema } from "./inputs";
import { enqueueChatJob } from "./service";
import {
  claimJobs,
  completeJob,
  databaseClock,
  enqueueJob,
  getJob,
  type QueueClock,
  requeueStaleJobs,
} from "./sql";
import type { JobProcessor, ProcessorRegistry } from "./types";
import { createJobWorker, DATABASE_ERROR_MESSAGE, type JobWorker } from "./worker";

const url = process.env.DATABASE_URL as string;
const database = testDatabase();
const pool = database.pool;
const logger = createLogger("worker-test", "silent");
const DATA_KEY = "ab".repeat(32);
let worker: JobWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
});
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

const chatJob = (message = "hi", userId = "usr_w", agentId = "agt_w", clock: QueueClock = databaseClock) =>
  enqueueJob(pool, clock, {
    jobType: "gateway_chat_completion",
    userId,
    agentId,
    payload: { userId, agentId, gatewayUrl: "http://127.0.0.1:9", message, systemPrompt: null },
  });

describe("job worker", () => {
  it("starts a job on NOTIFY (no poll) and stores the processor's result", async () => {
    const echo: JobProcessor = async (job) => ({ echoed: job.payload.message });
    await startWorker({ gateway_chat_completion: echo });
    const job = await chatJob("ping");
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ status: "completed" });
    const done = await getJob(pool, job.id);
    expect(done).toMatchObject({ status: "completed", attempts: 1, result: { echoed: "ping" }, error: null });
  });

  it("a throwing processor makes the attempt fail with its message and schedules the retry", async () => {
    await startWorker({
      gateway_chat_completion: async () => {
        throw new Error("agent is busy");
      },
    });
    const job = await chatJob();
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ attempts: 1, status: "queued" });
    const after = await getJob(pool, job.id);
    expect(after?.error).toBe("agent is busy");
    expect((after?.runAt.getTime() ?? 0) - (after?.updatedAt.getTime() ?? 0)).toBe(30_000);
  });

  it("a processor's database error is stored as a fixed message (no SQL, no parameters), logged without its parameters, and retried", async () => {
    const secret = "sk_secret_param_7f3a";
    const lines: string[] = [];
    await startWorker(
      {
        gateway_chat_completion: async () => {
          // drizzle wraps the failure: "Failed query: select $1::text ...\nparams: sk_secret_param_7f3a"
          await database.db.execute(sql`select ${secret}::text as s, 1 / 0 as boom`);
          return {};
        },
      },
      { logger: createLogger("worker-test", "info", { write: (line) => lines.push(line) }) },
    );
    const job = await chatJob();
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ attempts: 1, status: "queued" });
    const after = await getJob(pool, job.id);
    expect(after?.error).toBe(DATABASE_ERROR_MESSAGE);
    expect(after?.error).not.toContain("Failed query");
    expect(after?.error).not.toContain(secret);
    const logged = lines.find((line) => line.includes("a database error interrupted a job")) ?? "";
    expect(logged).toContain("Failed query: select $1::text");
    expect(logged).toContain("division by zero");
    expect(lines.join("")).not.toContain(secret);
    expect(lines.join("")).not.toContain("params:");
  });

  it("runtime job types fail with a clear error when the worker has no hosting platform", async () => {
    await startWorker(platformProcessors({ db: database.db, dataEncryptionKey: DATA_KEY }));
    const job = await enqueueJob(pool, databaseClock, {
      jobType: "provision_managed_runtime",
      payload: { userId: "usr_w", agentId: "agt_w" },
    });
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ attempts: 1, status: "queued" });
    const after = await getJob(pool, job.id);
    expect(after?.error).toBe("no hosting platform is configured for this backend");
  });

  it("runs at most `concurrency` jobs at once", async () => {
    let running = 0;
    let peak = 0;
    // The first jobs hold until three run at once, so the cap is reached whatever the machine's speed.
    let full: () => void = () => undefined;
    const three = new Promise<void>((r) => {
      full = r;
    });
    const slow: JobProcessor = async () => {
      running++;
      peak = Math.max(peak, running);
      if (running === 3) full();
      await three;
      running--;
      return {};
    };
    await startWorker({ gateway_chat_completion: slow }, { concurrency: 3 });
    const jobs = await Promise.all(Array.from({ length: 12 }, () => chatJob()));
    await expect
      .poll(
        async () =>
          (await pool.query("select count(*)::int as n from platform_jobs where status = 'completed'"))
            .rows[0].n,
      )
      .toBe(jobs.length);
    expect(peak).toBe(3);
  });

  it("on stop, lets running jobs finish within the grace period and releases the rest to queued", async () => {
    let release: () => void = () => undefined;
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let releaseQuick: () => void = () => undefined;
    const quickGate = new Promise<void>((r) => {
      releaseQuick = r;
    });
    const started: string[] = [];
    await startWorker(
      {
        gateway_chat_completion: async (job) => {
          started.push(job.payload.message as string);
          if (job.payload.message === "quick") {
            await quickGate;
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
    await expect.poll(() => started.length).toBe(2);
    // The quick job ends once the stop has begun: within the grace period.
    const stopping = (worker as JobWorker).stop();
    releaseQuick();
    await stopping;
    release();
    expect(await getJob(pool, quick.id)).toMatchObject({ status: "completed", result: { quick: true } });
    expect(await getJob(pool, stuck.id)).toMatchObject({
      status: "queued",
      attempts: 0,
      lockToken: null,
      result: null,
    });
    // The released job's late finish cannot write anything. A sleep: a write that must not come has no event.
    await new Promise((r) => setTimeout(r, 50));
    expect(await getJob(pool, stuck.id)).toMatchObject({ status: "queued", result: null });
  });
});

describe("lock heartbeat (fake time)", () => {
  const STALE = 10 * 60 * 1000;
  const START = "2026-11-21T10:00:00.000Z";
  let manual: ManualClock;
  let timers: ManualTimers;
  let clock: QueueClock;
  beforeEach(() => {
    manual = new ManualClock(START);
    timers = new ManualTimers(manual);
    clock = { now: () => manual.now() };
  });

  /** A processor that runs until the test releases it, and says when it started and with which signal. */
  function parkedProcessor() {
    let release: (result: Record<string, unknown>) => void = () => undefined;
    const finish = new Promise<Record<string, unknown>>((r) => {
      release = r;
    });
    let started: (signal: AbortSignal) => void = () => undefined;
    const signal = new Promise<AbortSignal>((r) => {
      started = r;
    });
    const processor: JobProcessor = async (_job, ctx) => {
      started(ctx.signal);
      return finish; // ignores its signal on purpose: what it returns late must not be written
    };
    return { processor, signal, release };
  }
  const lockedAt = async (id: string) => (await getJob(pool, id))?.lockedAt?.toISOString();

  it("refreshes a running job's lock every minute, so it outlives the 10-minute stale rule and completes", async () => {
    const parked = parkedProcessor();
    await startWorker({ gateway_chat_completion: parked.processor }, { clock, timers, staleAfterMs: STALE });
    const job = await chatJob("long", "usr_w", "agt_w", clock);
    const signal = await parked.signal;
    expect(await lockedAt(job.id)).toBe(START);

    await timers.advance(60_000 - 1);
    expect(await lockedAt(job.id)).toBe(START);
    await timers.advance(1);
    expect(await lockedAt(job.id)).toBe("2026-11-21T10:01:00.000Z");

    // 11 more minutes: the worker's own stale sweep (every 30 s) ran 22 times meanwhile.
    await timers.advance(11 * 60_000);
    expect(await requeueStaleJobs(pool, clock, STALE)).toEqual([]);
    expect(await getJob(pool, job.id)).toMatchObject({ status: "running", attempts: 1, error: null });
    expect(await lockedAt(job.id)).toBe("2026-11-21T10:12:00.000Z");
    expect(signal.aborted).toBe(false);

    parked.release({ reply: "done after 12 minutes" });
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ status: "completed" });
    const done = await getJob(pool, job.id);
    expect(done).toMatchObject({ attempts: 1, result: { reply: "done after 12 minutes" }, lockToken: null });
  });

  it("a job whose claim is lost has its processor aborted at the next refresh; its late result is not written", async () => {
    const parked = parkedProcessor();
    // One slot: the requeue's NOTIFY cannot make this worker claim the job again itself.
    await startWorker(
      { gateway_chat_completion: parked.processor },
      { clock, timers, staleAfterMs: STALE, concurrency: 1 },
    );
    const job = await chatJob("stolen", "usr_w", "agt_w", clock);
    const signal = await parked.signal;

    // Another backend's sweep requeues the job (as if this worker had stopped refreshing) and claims it anew.
    manual.advance(1);
    expect(await requeueStaleJobs(pool, clock, 0)).toEqual([job.id]);
    const [thief] = await claimJobs(pool, clock, 1);
    expect(thief.job.id).toBe(job.id);
    expect(signal.aborted).toBe(false);

    await timers.advance(60_000);
    expect(signal.aborted).toBe(true);
    expect((signal.reason as Error).message).toBe("the job's claim was lost");

    parked.release({ reply: "from the lost claim" });
    await expect.poll(() => (worker as JobWorker).active).toBe(0);
    expect(await getJob(pool, job.id)).toMatchObject({
      status: "running",
      attempts: 2,
      lockToken: thief.lockToken,
      result: null,
      completedAt: null,
    });
    expect(
      await completeJob(pool, clock, { id: job.id, lockToken: thief.lockToken }, { reply: "thief" }),
    ).toBe(true);
    expect((await getJob(pool, job.id))?.result).toEqual({ reply: "thief" });
  });

  it("refuses a refresh interval that is not shorter than the stale rule", () => {
    expect(() =>
      createJobWorker({
        connectionString: url,
        processors: {},
        logger,
        concurrency: 1,
        pollIntervalMs: 1_000,
        staleAfterMs: 60_000,
        lockRefreshIntervalMs: 60_000,
        shutdownGraceMs: 1_000,
      }),
    ).toThrow("lockRefreshIntervalMs (60000) must be shorter than staleAfterMs (60000)");
  });
});

describe("gateway_chat_completion", () => {
  let runtime: FakeUpstream;
  let attacker: FakeUpstream;
  const seen: Array<{ auth?: string; body: unknown }> = [];
  /** Agents of usr_chat at other addresses, created by the tests that need them. */
  const extraAgents: FakeUpstream[] = [];
  beforeAll(async () => {
    runtime = await startFakeUpstream((req, res, body) => {
      // The agent's wrapper proves it is agt_chat before the platform sends it the token.
      if (answerAgentIdentity(req, res, wrapperAdminPassword(DATA_KEY, "agt_chat", "gw-token-123"))) return;
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
    attacker = await startFakeUpstream((_req, res) =>
      sendJson(res, 200, { model: "stolen", choices: [{ message: { content: "gotcha" } }] }),
    );
    await createUser({ id: "usr_chat", email: "chat@example.com", name: "Chat" });
    await database.db.insert(agents).values({
      id: "agt_chat",
      userId: "usr_chat",
      name: "Agent",
      url: runtime.url,
      status: "running",
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "gw-token-123"),
    });
  });
  afterAll(async () => {
    await Promise.all([runtime, attacker, ...extraAgents].map((u) => u.close()));
  });

  /** An agent of usr_chat whose stored URL is a fake answering with `handler`; returns its id. */
  async function agentAnswering(handler: Parameters<typeof startFakeUpstream>[0]): Promise<string> {
    const id = newId("agt");
    const password = wrapperAdminPassword(DATA_KEY, id, "gw-token-123");
    const upstream = await startFakeUpstream((req, res, body) => {
      if (!answerAgentIdentity(req, res, password)) return handler(req, res, body);
    });
    extraAgents.push(upstream);
    await database.db.insert(agents).values({
      id,
      userId: "usr_chat",
      name: "Other",
      url: upstream.url,
      status: "running",
      gatewayTokenEncrypted: sealGatewayToken(DATA_KEY, "gw-token-123"),
    });
    return id;
  }

  const runChat = gatewayChatProcessor({ db: database.db, dataEncryptionKey: DATA_KEY });
  const jobFor = (
    message: string,
    systemPrompt: string | null = null,
    agentId = "agt_chat",
    gatewayUrl = attacker.url,
  ) =>
    ({
      id: newId("job"),
      userId: "usr_chat",
      agentId,
      payload: { userId: "usr_chat", agentId, gatewayUrl, message, systemPrompt },
    }) as never;
  const ctx = { signal: new AbortController().signal, logger, progress: async () => {} };

  it("posts an OpenAI-compatible request with the agent's token to its stored URL and returns {reply, model, usage}", async () => {
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
        // The user's session on the agent: it remembers the conversation.
        user: "platform:usr_chat",
      },
    });
    expect(attacker.requests).toEqual([]);
  });

  it("a job enqueued with an attacker's gatewayUrl: the attacker receives nothing, the agent's stored URL gets the message", async () => {
    const body = chatJobSchema.parse({
      userId: "usr_chat",
      agentId: "agt_chat",
      gatewayUrl: `${attacker.url}/steal`,
      message: "for my agent only",
    });
    const job = await enqueueChatJob({ db: pool, clock: databaseClock }, body);
    expect(job.payload.gatewayUrl).toBe(`${attacker.url}/steal`); // accepted: callers send it
    await startWorker(platformProcessors({ db: database.db, dataEncryptionKey: DATA_KEY }));
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ status: "completed" });
    const done = await getJob(pool, job.id);
    expect(done?.result).toMatchObject({ reply: "echo: for my agent only", model: "openclaw-test" });
    expect(seen.at(-1)?.auth).toBe("Bearer gw-token-123");
    expect(attacker.requests).toEqual([]);
  });

  it("another user's agent, or no agent at all, fails the job with 'not found' and calls nobody", async () => {
    await createUser({ id: "usr_other", email: "other@example.com", name: "O" });
    const calls = runtime.requests.length;
    const foreign = {
      id: newId("job"),
      userId: "usr_other",
      agentId: "agt_chat",
      payload: { userId: "usr_other", agentId: "agt_chat", gatewayUrl: runtime.url, message: "x" },
    } as never;
    await expect(runChat(foreign, ctx)).rejects.toThrow("agent agt_chat not found");
    await expect(runChat(jobFor("x", null, "agt_none"), ctx)).rejects.toThrow("agent agt_none not found");
    expect(runtime.requests.length).toBe(calls);
    expect(attacker.requests).toEqual([]);
  });

  it("fails with a clear message on a non-2xx answer or a missing token", async () => {
    await expect(runChat(jobFor("fail"), ctx)).rejects.toThrow(
      'the agent gateway answered HTTP 503: {"error":"overloaded"}',
    );
    const noKey = gatewayChatProcessor({ db: database.db, dataEncryptionKey: undefined });
    await expect(noKey(jobFor("x"), ctx)).rejects.toThrow("the agent has no gateway token");
  });

  it("does not follow a redirect from the agent: the attempt fails and the redirect's target receives nothing", async () => {
    const agentId = await agentAnswering((_req, res) => {
      res.writeHead(307, { location: `${attacker.url}/v1/chat/completions` });
      res.end();
    });
    await expect(runChat(jobFor("hi", null, agentId), ctx)).rejects.toThrow(
      "the agent gateway answered with a redirect, which is not followed",
    );
    expect(attacker.requests).toEqual([]);
  });

  it("an answer over the size cap fails the attempt cleanly, declared or streamed", async () => {
    const huge = JSON.stringify({
      choices: [{ message: { content: "x".repeat(AGENT_MAX_RESPONSE_BYTES) } }],
    });
    const declared = await agentAnswering((_req, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(huge) });
      res.end(huge);
    });
    const streamed = await agentAnswering((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }); // chunked: no length to refuse by
      for (let i = 0; i < huge.length; i += 64 * 1024) res.write(huge.slice(i, i + 64 * 1024));
      res.end();
    });
    const tooLarge = `the agent gateway's answer is larger than ${AGENT_MAX_RESPONSE_BYTES} bytes`;
    await expect(runChat(jobFor("hi", null, declared), ctx)).rejects.toThrow(tooLarge);
    await expect(runChat(jobFor("hi", null, streamed), ctx)).rejects.toThrow(tooLarge);

    // Through the worker: the attempt fails with that message and the job waits for its retry.
    await startWorker(platformProcessors({ db: database.db, dataEncryptionKey: DATA_KEY }));
    const job = await chatJob("big", "usr_chat", streamed);
    await expect.poll(() => getJob(pool, job.id)).toMatchObject({ attempts: 1, status: "queued" });
    const after = await getJob(pool, job.id);
    expect(after?.error).toBe(tooLarge);
  });

  it("times out after the configured time", async () => {
    const agentId = await agentAnswering(() => undefined);
    const slow = gatewayChatProcessor({ db: database.db, dataEncryptionKey: DATA_KEY, timeoutMs: 200 });
    await expect(slow(jobFor("x", null, agentId), ctx)).rejects.toThrow(
      "the agent gateway did not answer within 0.2 s",
    );
  });
});
