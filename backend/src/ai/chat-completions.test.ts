/**
 * `POST /api/ai/chat/completions`: OpenAI's path of the AI proxy, as an agent's runtime (OpenClaw) calls it —
 * its gateway token as key, always streaming, no `stream_options`, tools and content parts — through the
 * backend on a real port, to a loopback OpenAI-compatible provider.
 */
import { freePort, newId } from "@svc/common";
import { type FakeAiProvider, metricValue, startFakeAiProvider } from "@svc/common/testing";
import { agents, aiUsageHours } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { gatewayTokenStore, generateGatewayToken } from "../agents/tokens";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  INTERNAL_API_KEY,
  type ServedApp,
  serveApp,
  testApp,
  testDatabase,
} from "../testing";
import { MAX_ANSWER_TOKENS } from "./usage";

const MODEL = "openai/gpt-4o-mini";
const database = testDatabase();

let fake: FakeAiProvider;
const servers: ServedApp[] = [];

beforeAll(async () => {
  fake = await startFakeAiProvider({ apiKey: "provider-key-xyz" });
});
afterEach(() => fake.reset());
afterAll(async () => {
  for (const server of servers) await server.close();
  await fake.close();
});

/** The backend on a free loopback port with `env` over a configured provider. */
async function backend(env: Record<string, string | undefined> = {}): Promise<string> {
  const server = await serveApp(
    testApp({
      env: {
        DATA_ENCRYPTION_KEY,
        AI_PROVIDER_URL: fake.url,
        AI_PROVIDER_KEY: fake.apiKey,
        AI_PROVIDER_TIMEOUT_MS: "5000",
        ...env,
      },
    }),
  );
  servers.push(server);
  return server.url;
}

/** A user on `plan` with an agent; its gateway token written as provisioning writes it. */
async function agentOwner(plan = "pro") {
  const { id: userId } = await createUser({ name: "owner", plan });
  const agentId = newId("agt");
  await database.db.insert(agents).values({ id: agentId, userId, name: "agent" });
  const token = generateGatewayToken();
  await gatewayTokenStore(database.db, DATA_ENCRYPTION_KEY).write(agentId, token);
  return { userId, token };
}

async function usageOf(userId: string) {
  const rows = await database.db.select().from(aiUsageHours).where(eq(aiUsageHours.userId, userId));
  return {
    requests: rows.reduce((n, r) => n + r.requests, 0),
    promptTokens: rows.reduce((n, r) => n + r.promptTokens, 0),
    completionTokens: rows.reduce((n, r) => n + r.completionTokens, 0),
  };
}

/** What OpenClaw 2026.4.11 sends its provider (seen on the wire): no `stream_options`. */
const tools = [
  {
    type: "function",
    function: {
      name: "exec",
      description: "Run a shell command",
      parameters: { type: "object", properties: { command: { type: "string" } }, required: ["command"] },
      strict: false,
    },
  },
];
const openClawRequest = {
  model: MODEL,
  messages: [
    { role: "system", content: "You are a personal assistant running inside OpenClaw." },
    { role: "user", content: [{ type: "text", text: "list the files" }] },
    {
      role: "assistant",
      content: null,
      tool_calls: [
        { id: "call_1", type: "function", function: { name: "exec", arguments: '{"command":"ls"}' } },
      ],
    },
    { role: "tool", content: "notes.txt", tool_call_id: "call_1" },
    { role: "user", content: [{ type: "text", text: "and now?" }] },
  ],
  stream: true,
  store: false,
  max_completion_tokens: 4096,
  tools,
};

function post(url: string, token: string | null, body: unknown, signal?: AbortSignal) {
  return fetch(`${url}/api/ai/chat/completions`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(token === null ? {} : { authorization: `Bearer ${token}` }),
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
    signal,
  });
}

/** Reads a stream until `done(text)` holds; fails naming what arrived when it ends first. */
async function readUntil(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  done: (text: string) => boolean,
  text = "",
): Promise<string> {
  const decoder = new TextDecoder();
  let seen = text;
  while (!done(seen)) {
    const { done: ended, value } = await reader.read();
    if (ended) throw new Error(`the stream ended first: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  return seen;
}

/** The parsed `data:` events of a stream (without `[DONE]`). */
function events(text: string): Array<Record<string, unknown>> {
  return text
    .split("\n\n")
    .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
    .map((e) => JSON.parse(e.slice("data: ".length)) as Record<string, unknown>);
}

describe("POST /api/ai/chat/completions, an agent's runtime calling", () => {
  it("streams the provider's events as they arrive: the first chunk before the provider finished", async () => {
    const url = await backend();
    const { token } = await agentOwner();
    fake.setReply("One two three.", ["One ", "two ", "three."]);
    const release = fake.holdStream(1);
    try {
      const res = await post(url, token, openClawRequest);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      // The provider holds after its first content chunk: seeing it now means nothing waited for the end.
      let text = await readUntil(reader, (t) => t.includes('"content":"One "'));
      expect(text).not.toContain("two");
      release();
      text = await readUntil(reader, (t) => t.includes("data: [DONE]"), text);
      const chunks = events(text);
      expect(
        chunks.map((c) => (c.choices as Array<{ delta: { content?: string } }>)[0]?.delta.content),
      ).toEqual(["", "One ", "two ", "three.", undefined, undefined]);
      expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 1, completion_tokens: 1 } });
    } finally {
      release();
    }
    // Forwarded as sent, tools, content parts and tool turns included; only the usage request added.
    const forwarded = fake.requests.at(-1);
    expect(forwarded?.body).toEqual({ ...openClawRequest, stream_options: { include_usage: true } });
    expect(forwarded?.streamOptions).toEqual({ include_usage: true });
    expect(forwarded?.headers.authorization).toBe("Bearer provider-key-xyz");
    expect(JSON.stringify(forwarded?.headers)).not.toContain(token);
  });

  it("streams tool calls in OpenAI's delta format, and the responder reads the content parts", async () => {
    const url = await backend();
    const { token } = await agentOwner();
    fake.setResponder((_body, { lastUserText }) =>
      lastUserText === "and now?"
        ? { toolCalls: [{ name: "exec", arguments: { command: "echo hi" } }] }
        : undefined,
    );
    const res = await post(url, token, openClawRequest);
    const chunks = events(await res.text());
    const deltas = chunks.flatMap((c) =>
      (c.choices as Array<{ delta: { tool_calls?: unknown[] } }>).map((x) => x.delta),
    );
    const calls = deltas.flatMap((d) => d.tool_calls ?? []) as Array<{
      index: number;
      id?: string;
      type?: string;
      function: { name?: string; arguments: string };
    }>;
    expect(calls[0]).toEqual({
      index: 0,
      id: expect.stringMatching(/^call_fake_/),
      type: "function",
      function: { name: "exec", arguments: "" },
    });
    expect(calls.length).toBeGreaterThan(2);
    expect(calls.map((c) => c.function.arguments).join("")).toBe('{"command":"echo hi"}');
    expect(
      chunks.some(
        (c) => (c.choices as Array<{ finish_reason: string | null }>)[0]?.finish_reason === "tool_calls",
      ),
    ).toBe(true);
  });

  it("a JSON request gets the provider's JSON: tool calls through, usage counted", async () => {
    const url = await backend();
    const { token, userId } = await agentOwner();
    fake.setResponder(() => ({
      content: null,
      toolCalls: [{ name: "exec", arguments: { command: "ls" }, id: "c9" }],
    }));
    fake.setUsage({ prompt_tokens: 30, completion_tokens: 4 });
    const res = await post(url, token, { ...openClawRequest, stream: false });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: "chat.completion",
      choices: [
        {
          message: {
            role: "assistant",
            content: null,
            tool_calls: [
              { id: "c9", type: "function", function: { name: "exec", arguments: '{"command":"ls"}' } },
            ],
          },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 30, completion_tokens: 4 },
    });
    expect(fake.requests.at(-1)?.streamOptions).toBeUndefined();
    expect(await usageOf(userId)).toEqual({ requests: 1, promptTokens: 30, completionTokens: 4 });
  });

  it("counts a stream's usage although the client never asked for it", async () => {
    const url = await backend();
    const { token, userId } = await agentOwner();
    fake.setUsage({ prompt_tokens: 7, completion_tokens: 5 });
    const res = await post(url, token, openClawRequest);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("data: [DONE]");
    await vi.waitFor(async () =>
      expect(await usageOf(userId)).toEqual({ requests: 1, promptTokens: 7, completionTokens: 5 }),
    );
  });

  it("without a usage chunk from the provider, counts an estimate of the prompt (tools too) and the stream", async () => {
    const url = await backend();
    const { token, userId } = await agentOwner();
    fake.setStreamUsage("never");
    fake.setReply("abcdefgh");
    const res = await post(url, token, openClawRequest);
    expect(await res.text()).not.toContain('"usage"');
    const prompt = JSON.stringify(openClawRequest.messages).length + JSON.stringify(tools).length;
    await vi.waitFor(async () =>
      expect(await usageOf(userId)).toEqual({
        requests: 1,
        promptTokens: Math.ceil(prompt / 4),
        completionTokens: 2,
      }),
    );
  });

  it("takes a provider's usage only up to MAX_ANSWER_TOKENS", async () => {
    const url = await backend();
    const { token, userId } = await agentOwner();
    fake.setUsage({ prompt_tokens: 4e15, completion_tokens: 3 });
    await (await post(url, token, openClawRequest)).text();
    await vi.waitFor(async () =>
      expect(await usageOf(userId)).toEqual({
        requests: 1,
        promptTokens: MAX_ANSWER_TOKENS,
        completionTokens: 3,
      }),
    );
  });

  it("a client that goes away ends the provider's stream; what arrived is counted", async () => {
    const url = await backend();
    const { token, userId } = await agentOwner();
    fake.setReply("first second", ["first ", "second"]);
    const release = fake.holdStream(1);
    const controller = new AbortController();
    try {
      const before = fake.streamsClosedEarly();
      const res = await post(url, token, openClawRequest, controller.signal);
      await readUntil((res.body as ReadableStream<Uint8Array>).getReader(), (t) => t.includes("first "));
      controller.abort();
      await vi.waitFor(() => expect(fake.streamsClosedEarly()).toBe(before + 1), { timeout: 15_000 });
    } finally {
      release();
    }
    await vi.waitFor(async () => {
      const usage = await usageOf(userId);
      expect(usage.requests).toBe(1);
      expect(usage.completionTokens).toBe(Math.ceil("first ".length / 4));
    });
  });

  it("takes a body past the 1 MB of the rest of the API (a long session), up to 8 MB", async () => {
    const url = await backend();
    const { token } = await agentOwner();
    const long = { ...openClawRequest, messages: [{ role: "user", content: "x".repeat(3_000_000) }] };
    expect((await post(url, token, long)).status).toBe(200);
    const tooLong = { ...openClawRequest, messages: [{ role: "user", content: "x".repeat(9_000_000) }] };
    const refused = await post(url, token, tooLong);
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({
      error: {
        message: "request body is too large",
        type: "invalid_request_error",
        param: null,
        code: "payload_too_large",
      },
    });
  });

  it("is counted in the HTTP metrics under its route", async () => {
    const url = await backend();
    const { token } = await agentOwner();
    const labels = { method: "POST", route: "/api/ai/chat/completions", status: "200" };
    const scrape = async () =>
      metricValue(await (await fetch(`${url}/metrics`)).text(), "http_requests_total", labels);
    const before = await scrape();
    await (await post(url, token, openClawRequest)).text();
    await vi.waitFor(async () => expect(await scrape()).toBe(before + 1));
  });
});

describe("POST /api/ai/chat/completions refusals, in OpenAI's error shape", () => {
  it("401 for no key, an unknown key or the internal key; the provider is not called", async () => {
    const url = await backend();
    const before = fake.requests.length;
    for (const token of [null, generateGatewayToken(), INTERNAL_API_KEY]) {
      const res = await post(url, token, openClawRequest);
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({
        error: {
          message: "the API key is not the gateway token of an agent",
          type: "authentication_error",
          param: null,
          code: "invalid_api_key",
        },
      });
    }
    expect(fake.requests.length).toBe(before);
  });

  it("400 naming the field, or the unreadable body; nothing counted", async () => {
    const url = await backend();
    const { token, userId } = await agentOwner();
    const cases: Array<[unknown, string, string]> = [
      [{ ...openClawRequest, model: "" }, "model: must not be empty", "invalid_request"],
      [
        { model: MODEL, messages: [{ role: "robot", content: "x" }] },
        "messages.0.role: must be one of system, developer, user, assistant, tool",
        "invalid_request",
      ],
      [{ ...openClawRequest, stream: "yes" }, "stream: must be a boolean", "invalid_request"],
      ['{"model": ', "request body is not valid JSON", "invalid_json"],
    ];
    for (const [body, message, code] of cases) {
      const res = await post(url, token, body);
      expect(res.status, message).toBe(400);
      expect(await res.json()).toEqual({
        error: { message, type: "invalid_request_error", param: null, code },
      });
    }
    expect(await usageOf(userId)).toEqual({ requests: 0, promptTokens: 0, completionTokens: 0 });
  });

  it("a model the plan does not allow: 403", async () => {
    const url = await backend();
    const { token } = await agentOwner();
    const res = await post(url, token, { ...openClawRequest, model: "anthropic/claude-opus" });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({
      error: { type: "permission_error", code: "ai_model_not_allowed", model: "anthropic/claude-opus" },
    });
  });

  it("a spent budget: 429 with Retry-After, and x-should-retry: false so the agent's SDK does not sleep it out", async () => {
    const url = await backend({ AI_PLAN_LIMITS: JSON.stringify({ solo: { requestsPerHour: 1 } }) });
    const { token } = await agentOwner("solo");
    expect((await post(url, token, openClawRequest)).status).toBe(200);
    const before = fake.requests.length;
    const res = await post(url, token, openClawRequest);
    expect(res.status).toBe(429);
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(await res.json()).toEqual({
      error: {
        message: expect.stringMatching(/^the "solo" plan allows 1 AI requests per hour; try again in \d+ s$/),
        type: "rate_limit_error",
        param: null,
        code: "ai_request_budget_exhausted",
        retryAfterSeconds: expect.any(Number),
        limit: 1,
      },
    });
    expect(fake.requests.length).toBe(before);
  });

  it("a spent token budget refuses the next request", async () => {
    const url = await backend({ AI_PLAN_LIMITS: JSON.stringify({ solo: { tokensPerDay: 10 } }) });
    const { token } = await agentOwner("solo");
    fake.setUsage({ prompt_tokens: 8, completion_tokens: 4 });
    await (await post(url, token, openClawRequest)).text();
    await vi.waitFor(async () => {
      const res = await post(url, token, openClawRequest);
      expect(res.status).toBe(429);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe(
        "ai_token_budget_exhausted",
      );
    });
  });

  it("the provider failing before the stream: 502 with its status (JSON and stream); its own 4xx passes through", async () => {
    const url = await backend();
    const { token } = await agentOwner();
    fake.setFailure({ status: 500 });
    for (const stream of [true, false]) {
      const res = await post(url, token, { ...openClawRequest, stream });
      expect(res.status).toBe(502);
      expect(res.headers.get("x-should-retry")).toBeNull();
      expect(await res.json()).toEqual({
        error: {
          message: "the AI provider (openrouter) failed with HTTP 500",
          type: "api_error",
          param: null,
          code: "ai_provider_error",
          providerStatus: 500,
        },
      });
    }
    const limited = {
      error: { message: "Rate limit reached", type: "rate_limit_error", code: "rate_limit_exceeded" },
    };
    fake.setFailure({ status: 429, body: limited });
    const res = await post(url, token, openClawRequest);
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual(limited);
  });

  it("the provider unreachable: 502; too slow: 504", async () => {
    const closed = await freePort();
    const { token } = await agentOwner();
    const unreachable = await post(
      await backend({ AI_PROVIDER_URL: `http://127.0.0.1:${closed}/v1` }),
      token,
      openClawRequest,
    );
    expect(unreachable.status).toBe(502);
    expect(await unreachable.json()).toMatchObject({
      error: { type: "api_error", code: "ai_provider_unreachable" },
    });
    fake.setDelay(1_000);
    const slow = await post(await backend({ AI_PROVIDER_TIMEOUT_MS: "200" }), token, openClawRequest);
    expect(slow.status).toBe(504);
    expect(await slow.json()).toMatchObject({ error: { type: "api_error", code: "ai_provider_timeout" } });
  });

  it("no AI provider configured: 503, not to be retried", async () => {
    const url = await backend({ AI_PROVIDER_KEY: undefined });
    const { token } = await agentOwner();
    const res = await post(url, token, openClawRequest);
    expect(res.status).toBe(503);
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(await res.json()).toEqual({
      error: {
        message: "AI_PROVIDER_KEY is not configured",
        type: "api_error",
        param: null,
        code: "ai_provider_unconfigured",
      },
    });
  });
});
