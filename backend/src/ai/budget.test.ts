/** Per-user budgets and model lists of `POST /api/ai/chat` (issue #12, item 6). */
import { ConfigError, ManualClock, newId } from "@svc/common";
import {
  type FakeAiProvider,
  type FakeUpstream,
  startFakeAiProvider,
  startFakeUpstream,
} from "@svc/common/testing";
import { connectDatabase, type DatabaseHandle } from "@svc/db";
import { agents, aiUsageHours } from "@svc/db/schema";
import { asc, eq } from "drizzle-orm";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { gatewayTokenStore, generateGatewayToken } from "../agents/tokens";
import { loadBackendConfig } from "../config";
import { createUser, DATA_ENCRYPTION_KEY, headersFor, testApp, testDatabase } from "../testing";

const DEFAULT_MODEL = "openai/gpt-4o-mini";
const database = testDatabase();
const question = { model: DEFAULT_MODEL, messages: [{ role: "user", content: "Hi?" }] };

let fake: FakeAiProvider;
beforeAll(async () => {
  fake = await startFakeAiProvider({ apiKey: "provider-key-xyz" });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

interface TestUser {
  id: string;
  plan: string;
  /** The web's path: internal key, signed user context, plan headers. */
  headers: Record<string, string>;
  /** The agent's path: its gateway token as Bearer. */
  agentHeaders: Record<string, string>;
}

async function newUser(plan: string): Promise<TestUser> {
  const user = await createUser({ name: "user", plan, emailVerifiedAt: new Date() });
  const id = user.id;
  const agentId = newId("agt");
  await database.db.insert(agents).values({ id: agentId, userId: id, name: "agent" });
  // Written through the process-wide store, as provisioning does, so this process knows it at once.
  const token = generateGatewayToken();
  await gatewayTokenStore(database.db, DATA_ENCRYPTION_KEY).write(agentId, token);
  return {
    id,
    plan,
    headers: { ...headersFor(user), "x-user-plan": plan },
    agentHeaders: { authorization: `Bearer ${token}` },
  };
}

function appWith(
  env: Record<string, string | undefined>,
  clock: ManualClock,
  handle: DatabaseHandle = database,
  providerUrl = fake.url,
) {
  return testApp({
    env: { DATA_ENCRYPTION_KEY, AI_PROVIDER_URL: providerUrl, AI_PROVIDER_KEY: fake.apiKey, ...env },
    database: handle,
    clock,
  });
}

function chat(app: ReturnType<typeof appWith>, headers: Record<string, string>, body: object = question) {
  return request(app).post("/api/ai/chat").set(headers).send(body);
}

/** The raw text of a streamed answer. */
function streamed(req: request.Test) {
  return req.buffer(true).parse((r, done) => {
    let text = "";
    r.on("data", (chunk: Buffer) => {
      text += chunk.toString("utf8");
    });
    r.on("end", () => done(null, text));
  });
}

async function usageRows(userId: string) {
  return database.db
    .select({
      hourStart: aiUsageHours.hourStart,
      requests: aiUsageHours.requests,
      promptTokens: aiUsageHours.promptTokens,
      completionTokens: aiUsageHours.completionTokens,
    })
    .from(aiUsageHours)
    .where(eq(aiUsageHours.userId, userId))
    .orderBy(asc(aiUsageHours.hourStart));
}

const limits = (plans: Record<string, object>) => ({ AI_PLAN_LIMITS: JSON.stringify(plans) });

describe("POST /api/ai/chat within the budget", () => {
  it("passes, and records each request and the provider's usage in the user's hour", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const user = await newUser("solo");
    const app = appWith({}, clock);
    for (const headers of [user.headers, user.agentHeaders]) {
      const res = await chat(app, headers);
      expect(res.status).toBe(200);
      expect(res.body.usage).toEqual({ prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 });
    }
    expect(await usageRows(user.id)).toEqual([
      { hourStart: new Date("2026-03-02T10:00:00Z"), requests: 2, promptTokens: 2, completionTokens: 2 },
    ]);
  });

  it("a stream counts the usage of its final chunk, asked for with stream_options.include_usage", async () => {
    const withUsage: FakeUpstream = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = (fields: object) =>
        `data: ${JSON.stringify({ object: "chat.completion.chunk", ...fields })}\n\n`;
      res.write(chunk({ choices: [{ index: 0, delta: { content: "Hi there" }, finish_reason: null }] }));
      res.write(chunk({ choices: [{ index: 0, delta: {}, finish_reason: "stop" }] }));
      res.write(chunk({ choices: [], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } }));
      res.end("data: [DONE]\n\n");
    });
    try {
      const clock = new ManualClock("2026-03-02T10:15:00Z");
      const user = await newUser("solo");
      const app = appWith({}, clock, database, `${withUsage.url}/v1`);
      const res = await streamed(
        chat(app, user.agentHeaders, { ...question, stream_options: { include_usage: false }, stream: true }),
      );
      expect(res.status).toBe(200);
      expect(res.body as string).toContain('"prompt_tokens":7');
      expect(JSON.parse(withUsage.requests[0].body.toString("utf8")).stream_options).toEqual({
        include_usage: true,
      });
      expect(await usageRows(user.id)).toEqual([
        { hourStart: new Date("2026-03-02T10:00:00Z"), requests: 1, promptTokens: 7, completionTokens: 5 },
      ]);
    } finally {
      await withUsage.close();
    }
  });

  it("a stream without usage is counted by estimate: 4 characters a token", async () => {
    fake.setReply("a b c d e f");
    fake.setStreamUsage("never");
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const user = await newUser("solo");
    const app = appWith({}, clock);
    const res = await streamed(chat(app, user.agentHeaders, { ...question, stream: true }));
    expect(res.status).toBe(200);
    expect(res.body as string).toContain("data: [DONE]");
    expect(await usageRows(user.id)).toEqual([
      {
        hourStart: new Date("2026-03-02T10:00:00Z"),
        requests: 1,
        promptTokens: Math.ceil(JSON.stringify(question.messages).length / 4),
        completionTokens: Math.ceil("a b c d e f".length / 4),
      },
    ]);
  });
});

describe("POST /api/ai/chat budgets spent", () => {
  it("request budget: 429 with retryAfterSeconds and Retry-After, nothing forwarded, nothing counted", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const user = await newUser("solo");
    const app = appWith(limits({ solo: { requestsPerHour: 2 } }), clock);
    expect((await chat(app, user.agentHeaders)).status).toBe(200);
    expect((await chat(app, user.headers)).status).toBe(200);
    const before = fake.requests.length;
    for (const body of [question, { ...question, stream: true }]) {
      const res = await chat(app, user.agentHeaders, body);
      expect(res.status).toBe(429);
      expect(res.headers["retry-after"]).toBe("2700");
      expect(res.body).toEqual({
        error: "ai_request_budget_exhausted",
        message: 'the "solo" plan allows 2 AI requests per hour; try again in 2700 s',
        retryAfterSeconds: 2700,
        limit: 2,
      });
    }
    expect(fake.requests.length).toBe(before);
    expect((await usageRows(user.id))[0].requests).toBe(2);
  });

  it("token budget: 429 until the UTC day ends once the day's tokens reached it", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    // Each answer of the fake costs 2 tokens; the budget is 4 a day.
    const user = await newUser("solo");
    const app = appWith(limits({ solo: { tokensPerDay: 4 } }), clock);
    expect((await chat(app, user.headers)).status).toBe(200);
    clock.set("2026-03-02T13:30:00Z");
    expect((await chat(app, user.agentHeaders)).status).toBe(200);
    const before = fake.requests.length;
    const res = await chat(app, user.agentHeaders);
    expect(res.status).toBe(429);
    expect(res.headers["retry-after"]).toBe(String(10.5 * 3600));
    expect(res.body).toEqual({
      error: "ai_token_budget_exhausted",
      message: `the "solo" plan allows 4 AI tokens per day (UTC); try again in ${10.5 * 3600} s`,
      retryAfterSeconds: 10.5 * 3600,
      limit: 4,
    });
    expect(fake.requests.length).toBe(before);
    expect((await usageRows(user.id)).map((row) => row.requests)).toEqual([1, 1]);
  });

  it("another user's usage does not count", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const spender = await newUser("solo");
    const other = await newUser("solo");
    const app = appWith(limits({ solo: { requestsPerHour: 1, tokensPerDay: 2 } }), clock);
    expect((await chat(app, spender.agentHeaders)).status).toBe(200);
    expect((await chat(app, spender.agentHeaders)).status).toBe(429);
    const res = await chat(app, other.agentHeaders);
    expect(res.status).toBe(200);
    expect(await usageRows(other.id)).toEqual([
      { hourStart: new Date("2026-03-02T10:00:00Z"), requests: 1, promptTokens: 1, completionTokens: 1 },
    ]);
  });

  it("each plan has its own budget; a plan without an entry has the AI_* defaults", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const solo = await newUser("solo");
    const pro = await newUser("pro");
    const app = appWith({ AI_REQUESTS_PER_HOUR: "1", ...limits({ pro: { requestsPerHour: 3 } }) }, clock);
    const statuses = async (user: TestUser) => {
      const out: number[] = [];
      for (let i = 0; i < 4; i++) out.push((await chat(app, user.agentHeaders)).status);
      return out;
    };
    expect(await statuses(solo)).toEqual([200, 429, 429, 429]);
    expect(await statuses(pro)).toEqual([200, 200, 200, 429]);
  });
});

describe("POST /api/ai/chat budget windows", () => {
  it("the request budget starts again with the next clock hour, the token budget with the next UTC day", async () => {
    const clock = new ManualClock("2026-03-02T23:15:00Z");
    const user = await newUser("solo");
    const app = appWith(limits({ solo: { requestsPerHour: 1, tokensPerDay: 4 } }), clock);
    expect((await chat(app, user.agentHeaders)).status).toBe(200);
    clock.set("2026-03-02T23:59:59Z");
    const hourSpent = await chat(app, user.agentHeaders);
    expect(hourSpent.status).toBe(429);
    expect(hourSpent.body.error).toBe("ai_request_budget_exhausted");
    expect(hourSpent.body.retryAfterSeconds).toBe(1);

    // 00:00 is a new hour and a new day.
    clock.set("2026-03-03T00:00:00Z");
    expect((await chat(app, user.agentHeaders)).status).toBe(200);
    clock.set("2026-03-03T01:00:00Z");
    expect((await chat(app, user.agentHeaders)).status).toBe(200);
    clock.set("2026-03-03T02:00:00Z");
    const daySpent = await chat(app, user.agentHeaders);
    expect(daySpent.status).toBe(429);
    expect(daySpent.body.error).toBe("ai_token_budget_exhausted");
    expect(daySpent.body.retryAfterSeconds).toBe(22 * 3600);
    clock.set("2026-03-04T00:00:00Z");
    expect((await chat(app, user.agentHeaders)).status).toBe(200);

    expect(await usageRows(user.id)).toEqual(
      ["2026-03-02T23:00:00Z", "2026-03-03T00:00:00Z", "2026-03-03T01:00:00Z", "2026-03-04T00:00:00Z"].map(
        (hour) => ({ hourStart: new Date(hour), requests: 1, promptTokens: 1, completionTokens: 1 }),
      ),
    );
  });

  it("two backend processes on one database share the budget: concurrent requests cannot overspend it", async () => {
    const second = connectDatabase(process.env.DATABASE_URL ?? "");
    try {
      const clock = new ManualClock("2026-03-02T10:15:00Z");
      const env = limits({ solo: { requestsPerHour: 3 } });
      const user = await newUser("solo");
      const apps = [appWith(env, clock), appWith(env, clock, second)];
      const before = fake.requests.length;
      const answers = await Promise.all(
        Array.from({ length: 8 }, (_, i) => chat(apps[i % 2], user.agentHeaders)),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429]);
      expect(fake.requests.length).toBe(before + 3);
      expect((await usageRows(user.id))[0]).toMatchObject({
        requests: 3,
        promptTokens: 3,
        completionTokens: 3,
      });
    } finally {
      await second.close();
    }
  });
});

describe("POST /api/ai/chat model allow-list", () => {
  it("a model the plan does not allow is 403 naming it, before the provider or the budget", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const user = await newUser("solo");
    const app = appWith({}, clock);
    const before = fake.requests.length;
    for (const headers of [user.agentHeaders, user.headers]) {
      const res = await chat(app, headers, { ...question, model: "anthropic/claude-opus-4" });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({
        error: "ai_model_not_allowed",
        message: 'model "anthropic/claude-opus-4" is not allowed on the "solo" plan',
        model: "anthropic/claude-opus-4",
        plan: "solo",
        allowedModels: [DEFAULT_MODEL],
      });
    }
    expect(fake.requests.length).toBe(before);
    expect(await usageRows(user.id)).toEqual([]);
  });

  it("AI_MODELS and a plan's models (ids, prefix/*, *) widen the list; the default model is always allowed", async () => {
    const clock = new ManualClock("2026-03-02T10:15:00Z");
    const solo = await newUser("solo");
    const pro = await newUser("pro");
    const team = await newUser("team");
    const app = appWith(
      {
        AI_MODELS: "openai/gpt-4o, mistralai/*",
        ...limits({ pro: { models: ["anthropic/*"] }, team: { models: ["*"] } }),
      },
      clock,
    );
    const cases: Array<[TestUser, string, number]> = [
      [solo, DEFAULT_MODEL, 200],
      [solo, "openai/gpt-4o", 200],
      [solo, "mistralai/mistral-large", 200],
      [solo, "anthropic/claude-opus-4", 403],
      // A plan's own list replaces AI_MODELS; the default model stays.
      [pro, "anthropic/claude-opus-4", 200],
      [pro, DEFAULT_MODEL, 200],
      [pro, "openai/gpt-4o", 403],
      [team, "x-ai/grok-4", 200],
    ];
    for (const [user, model, status] of cases) {
      const res = await chat(app, user.agentHeaders, { ...question, model });
      expect(res.status, `${user.plan} ${model}`).toBe(status);
      if (status === 200) expect(fake.requests.at(-1)?.body?.model).toBe(model);
    }
  });
});

describe("AI budget configuration", () => {
  it("defaults: 60 requests an hour, 200000 tokens a day, the default model only", () => {
    const config = loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL });
    expect(config).toMatchObject({
      AI_REQUESTS_PER_HOUR: 60,
      AI_TOKENS_PER_DAY: 200_000,
      AI_DEFAULT_MODEL: DEFAULT_MODEL,
      AI_MODELS: [],
      AI_PLAN_LIMITS: {},
    });
  });

  it("a bad AI_PLAN_LIMITS fails at start, naming the variable and the place in the JSON", () => {
    const cases: Array<[string, string]> = [
      ["{nope", "AI_PLAN_LIMITS: must be JSON"],
      ["[1]", "AI_PLAN_LIMITS: must be a JSON object of plans"],
      [
        '{"pro": {"requestsPerHour": 0}}',
        "AI_PLAN_LIMITS: pro.requestsPerHour: must be a positive whole number",
      ],
      ['{"pro": {"tokensPerDay": 1.5}}', "AI_PLAN_LIMITS: pro.tokensPerDay: must be a positive whole number"],
      ['{"pro": {"models": "*"}}', "AI_PLAN_LIMITS: pro.models: must be a list of model ids"],
      ['{"pro": {"requestPerHour": 5}}', "AI_PLAN_LIMITS: pro: unknown field requestPerHour"],
    ];
    for (const [value, problem] of cases) {
      let error: unknown;
      try {
        loadBackendConfig({ DATABASE_URL: process.env.DATABASE_URL, AI_PLAN_LIMITS: value });
      } catch (err) {
        error = err;
      }
      expect(error, value).toBeInstanceOf(ConfigError);
      expect((error as ConfigError).problems, value).toEqual([expect.stringContaining(problem)]);
    }
  });
});
