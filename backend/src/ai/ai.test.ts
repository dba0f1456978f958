import { freePort, userContextHeaders } from "@svc/common";
import {
  type FakeAiProvider,
  type FakeUpstream,
  startFakeAiProvider,
  startFakeUpstream,
} from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import request from "supertest";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { createUser, HMAC_SECRET, headersFor, serveApp, type TestUser, testApp } from "../testing";

let fake: FakeAiProvider;
let user: TestUser;
beforeAll(async () => {
  fake = await startFakeAiProvider({ apiKey: "provider-key-xyz" });
  user = await createUser({
    name: "subscriber",
    plan: "pro",
    paymentsSubscriptionId: "sub_123",
    emailVerifiedAt: new Date("2026-01-01T00:00:00Z"),
  });
});
afterEach(() => fake.reset());
afterAll(() => fake.close());

function appWith(env: Record<string, string | undefined> = {}) {
  return testApp({
    env: { AI_PROVIDER_URL: fake.url, AI_PROVIDER_KEY: fake.apiKey, AI_PROVIDER_TIMEOUT_MS: "5000", ...env },
  });
}

function chatHeaders(overrides: Record<string, string> = {}): Record<string, string> {
  return {
    ...headersFor(user),
    "x-user-plan": "pro",
    "x-payments-subscription-id": "sub_123",
    ...overrides,
  };
}

function chat(body: unknown, app = appWith(), headers = chatHeaders()) {
  return request(app)
    .post("/api/ai/chat")
    .set(headers)
    .send(body as object);
}

const question = {
  model: "openai/gpt-4o-mini",
  messages: [
    { role: "system", content: "Be brief." },
    { role: "user", content: "Hi?" },
  ],
};

/** The promise, or a failure naming what was awaited when `deadline` (epoch ms) passes first. */
function withDeadline<T>(promise: Promise<T>, deadline: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(what())), Math.max(0, deadline - Date.now()));
  });
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer));
}

/** `data:` payloads of an event stream, in order. */
function sseData(text: string): string[] {
  return text
    .split("\n\n")
    .filter((event) => event.startsWith("data: "))
    .map((event) => event.slice("data: ".length));
}

function contentOf(data: string[]): string[] {
  return data
    .filter((d) => d !== "[DONE]")
    .map(
      (d) => (JSON.parse(d) as { choices: Array<{ delta: { content?: string } }> }).choices[0]?.delta.content,
    )
    .filter((c): c is string => typeof c === "string" && c !== "");
}

describe("POST /api/ai/chat JSON", () => {
  it("forwards the request with the provider key and answers with the provider's JSON", async () => {
    fake.setReply("Hello, subscriber.");
    const body = { ...question, temperature: 0.2, max_tokens: 64, tools: [{ type: "function" }] };
    const res = await chat(body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^chatcmpl-fake-\d+$/),
      object: "chat.completion",
      created: expect.any(Number),
      model: "openai/gpt-4o-mini",
      choices: [
        { index: 0, message: { role: "assistant", content: "Hello, subscriber." }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
    const forwarded = fake.requests.at(-1);
    expect(forwarded?.body).toEqual(body);
    expect(forwarded?.headers.authorization).toBe("Bearer provider-key-xyz");
    expect(forwarded?.headers["content-type"]).toBe("application/json");
    expect(fake.upstream.requests.at(-1)?.path).toBe("/v1/chat/completions");
    // Nothing of our own trust boundary travels to the provider.
    for (const header of ["x-user-signature", "x-user-id", "x-user-plan", "x-payments-subscription-id"]) {
      expect(forwarded?.headers[header]).toBeUndefined();
    }
  });

  it("a trailing slash on AI_PROVIDER_URL changes nothing", async () => {
    const res = await chat(question, appWith({ AI_PROVIDER_URL: `${fake.url}/` }));
    expect(res.status).toBe(200);
    expect(fake.upstream.requests.at(-1)?.path).toBe("/v1/chat/completions");
  });

  it("passes a provider 4xx through with its status and error body", async () => {
    for (const [status, body] of [
      [
        429,
        { error: { message: "Rate limit reached", type: "rate_limit_error", code: "rate_limit_exceeded" } },
      ],
      [400, { error: { message: "model not found", type: "invalid_request_error", code: null } }],
    ] as const) {
      fake.setFailure({ status, body });
      const res = await chat(question);
      expect(res.status).toBe(status);
      expect(res.body).toEqual(body);
    }
  });

  it("a provider 5xx is 502 ai_provider_error, for plain and streaming requests", async () => {
    for (const status of [500, 503]) {
      fake.setFailure({ status });
      for (const stream of [false, true]) {
        const res = await chat({ ...question, stream });
        expect(res.status).toBe(502);
        expect(res.body).toEqual({
          error: "ai_provider_error",
          message: `the AI provider (openrouter) failed with HTTP ${status}`,
          providerStatus: status,
        });
      }
    }
  });

  it("504 when the provider does not answer within AI_PROVIDER_TIMEOUT_MS", async () => {
    fake.setDelay(2_000);
    const before = fake.requests.length;
    const res = await chat(question, appWith({ AI_PROVIDER_TIMEOUT_MS: "200" }));
    expect(res.status).toBe(504);
    expect(res.body).toEqual({
      error: "ai_provider_timeout",
      message: "the AI provider (openrouter) did not answer within 200 ms",
    });
    expect(fake.requests.length).toBe(before + 1);
  });

  it("502 when the provider cannot be reached", async () => {
    // A port that was free a moment ago: nothing listens there (fetch refuses well-known ports like 1).
    const closed = await freePort();
    const res = await chat(question, appWith({ AI_PROVIDER_URL: `http://127.0.0.1:${closed}/v1` }));
    expect(res.status).toBe(502);
    expect(res.body).toEqual({
      error: "ai_provider_unreachable",
      message: "could not reach the AI provider (openrouter): connection refused (ECONNREFUSED)",
    });
  });

  it("503 ai_provider_unconfigured without AI_PROVIDER_KEY, and the provider is not called", async () => {
    const before = fake.requests.length;
    const res = await chat(question, appWith({ AI_PROVIDER_KEY: undefined }));
    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      error: "ai_provider_unconfigured",
      message: "AI_PROVIDER_KEY is not configured",
    });
    expect(fake.requests.length).toBe(before);
  });
});

describe("POST /api/ai/chat answers that are not JSON", () => {
  let odd: FakeUpstream;
  beforeAll(async () => {
    odd = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<html>maintenance</html>");
    });
  });
  afterAll(() => odd.close());

  it("a 2xx without JSON is 502, a 4xx without JSON keeps its status with a message", async () => {
    const app = appWith({ AI_PROVIDER_URL: odd.url });
    const ok = await chat(question, app);
    expect(ok.status).toBe(502);
    expect(ok.body).toEqual({
      error: "ai_provider_error",
      message: "the AI provider (openrouter) answered without JSON",
    });

    odd.setHandler((_req, res) => {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("no such model");
    });
    const missing = await chat(question, app);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: "ai_provider_error",
      message: "the AI provider (openrouter) answered 404: no such model",
    });
  });
});

describe("POST /api/ai/chat streaming", () => {
  it("pipes the provider's events through as they arrive, in order, ending with [DONE]", async () => {
    fake.setReply("One two three.", ["One ", "two ", "three."]);
    // The provider holds after its first content chunk: the client can only see that chunk now if the
    // backend forwards chunks as they come instead of buffering the answer.
    const release = fake.holdStream(1);
    const { url, close } = await serveApp(appWith());
    try {
      const res = await fetch(`${url}/api/ai/chat`, {
        method: "POST",
        headers: { ...chatHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ ...question, stream: true }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
      expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      let text = "";
      const deadline = Date.now() + 5_000;
      while (!text.includes('"content":"One "')) {
        const { done, value } = await withDeadline(
          reader.read(),
          deadline,
          () => `no first chunk yet: ${text}`,
        );
        if (done) throw new Error(`stream ended early: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
      expect(text).not.toContain("two");
      release();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      const data = sseData(text);
      expect(contentOf(data)).toEqual(["One ", "two ", "three."]);
      expect(data.at(-1)).toBe("[DONE]");
      expect(JSON.parse(data[0])).toMatchObject({ object: "chat.completion.chunk", model: question.model });
      expect(JSON.parse(data.at(-3) ?? "")).toMatchObject({ choices: [{ finish_reason: "stop" }] });
      // The usage chunk the backend asked for (the client did not), passed on like every other chunk.
      expect(JSON.parse(data.at(-2) ?? "")).toMatchObject({ choices: [], usage: { prompt_tokens: 1 } });
      // Asked for the final usage chunk, which the token budget counts.
      expect(fake.requests.at(-1)?.body).toEqual({
        ...question,
        stream: true,
        stream_options: { include_usage: true },
      });
      expect(fake.requests.at(-1)?.headers.accept).toBe("text/event-stream");
    } finally {
      release();
      await close();
    }
  });

  it("supertest sees the same complete stream", async () => {
    fake.setReply("a b c");
    const res = await chat({ ...question, stream: true })
      .buffer(true)
      .parse((r, done) => {
        let text = "";
        r.on("data", (chunk: Buffer) => {
          text += chunk.toString("utf8");
        });
        r.on("end", () => done(null, text));
      });
    expect(res.status).toBe(200);
    const data = sseData(res.body as string);
    expect(contentOf(data)).toEqual(["a ", "b ", "c"]);
    expect(data.at(-1)).toBe("[DONE]");
  });

  it("aborts the provider request when the client disconnects", async () => {
    const release = fake.holdStream(1);
    const { url, close } = await serveApp(appWith());
    const controller = new AbortController();
    try {
      const before = fake.streamsClosedEarly();
      const res = await fetch(`${url}/api/ai/chat`, {
        method: "POST",
        headers: { ...chatHeaders(), "content-type": "application/json" },
        body: JSON.stringify({ ...question, stream: true }),
        signal: controller.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      controller.abort();
      await vi.waitFor(() => expect(fake.streamsClosedEarly()).toBe(before + 1), { timeout: 15_000 });
    } finally {
      release();
      await close();
    }
  });

  it("a stream that goes silent longer than the timeout ends with an error event, without [DONE]", async () => {
    fake.setReply("first second", ["first ", "second"]);
    const release = fake.holdStream(1);
    try {
      const res = await chat({ ...question, stream: true }, appWith({ AI_PROVIDER_TIMEOUT_MS: "300" }))
        .buffer(true)
        .parse((r, done) => {
          let text = "";
          r.on("data", (chunk: Buffer) => {
            text += chunk.toString("utf8");
          });
          r.on("end", () => done(null, text));
        });
      expect(res.status).toBe(200);
      const data = sseData(res.body as string);
      expect(contentOf(data.slice(0, -1))).toEqual(["first "]);
      expect(JSON.parse(data.at(-1) ?? "")).toEqual({
        error: {
          message: "the AI provider (openrouter) did not answer within 300 ms",
          type: "api_error",
          param: null,
          code: "ai_provider_timeout",
        },
      });
      expect(data).not.toContain("[DONE]");
    } finally {
      release();
    }
  });
});

describe("POST /api/ai/chat plan middleware", () => {
  it("402 SUBSCRIPTION_MISMATCH before any provider call", async () => {
    const before = fake.requests.length;
    const cases: Array<[Record<string, string>, string]> = [
      [{ "x-user-plan": "enterprise" }, "x-user-plan does not match the account's plan"],
      [
        { "x-payments-subscription-id": "sub_other" },
        "x-payments-subscription-id does not match the account's subscription",
      ],
      [
        userContextHeaders(HMAC_SECRET, {
          userId: "usr_unknown",
          userEmail: "x@example.com",
          userRole: "user",
        }),
        "no account matches the user context",
      ],
    ];
    for (const [overrides, message] of cases) {
      const res = await chat({ ...question, stream: true }, appWith(), chatHeaders(overrides));
      expect(res.status).toBe(402);
      expect(res.body).toEqual({ error: "SUBSCRIPTION_MISMATCH", message });
    }
    const { "x-user-plan": _plan, ...withoutPlan } = chatHeaders();
    const noPlan = await chat(question, appWith(), withoutPlan);
    expect(noPlan.status).toBe(402);
    expect(noPlan.body).toEqual({
      error: "SUBSCRIPTION_MISMATCH",
      message: "x-user-plan header is required",
    });
    expect(fake.requests.length).toBe(before);
  });

  it("with the database down, the x-user-plan header alone decides", async () => {
    const dead = connectDatabase("postgres://x:y@127.0.0.1:1/none");
    try {
      const app = testApp({
        env: { AI_PROVIDER_URL: fake.url, AI_PROVIDER_KEY: fake.apiKey },
        database: dead,
      });
      const ok = await chat(
        question,
        app,
        chatHeaders({ "x-user-plan": "anything", "x-payments-subscription-id": "sub_x" }),
      );
      expect(ok.status).toBe(200);
      expect(ok.body.object).toBe("chat.completion");
      const { "x-user-plan": _plan, ...withoutPlan } = chatHeaders();
      const refused = await chat(question, app, withoutPlan);
      expect(refused.status).toBe(402);
      expect(refused.body).toEqual({
        error: "SUBSCRIPTION_MISMATCH",
        message: "x-user-plan header is required",
      });
    } finally {
      await dead.close();
    }
  });

  it("403 EMAIL_NOT_VERIFIED for an account whose email is not confirmed, before any provider call; REQUIRE_VERIFIED_EMAIL=false lifts it", async () => {
    const unconfirmed = await createUser({
      name: "unconfirmed",
      plan: "pro",
      paymentsSubscriptionId: "sub_123",
    });
    const headers = chatHeaders(headersFor(unconfirmed));
    const before = fake.requests.length;
    const refused = await chat(question, appWith(), headers);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: "EMAIL_NOT_VERIFIED",
      message:
        "the account's email is not confirmed: AI use needs a confirmed email (the link of the verification mail)",
    });
    expect(fake.requests.length).toBe(before);
    const allowed = await chat(question, appWith({ REQUIRE_VERIFIED_EMAIL: "false" }), headers);
    expect(allowed.status).toBe(200);
  });

  it("requires the signed user context", async () => {
    const res = await chat(question, appWith(), { ...headersFor("internal"), "x-user-plan": "pro" });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: "SIGNATURE_REQUIRED", message: "x-user-signature header is required" });
  });
});

describe("POST /api/ai/chat body validation", () => {
  it("400 naming the field, and the provider is not called", async () => {
    const before = fake.requests.length;
    const cases: Array<[unknown, string]> = [
      [{ ...question, model: 42 }, "model: must be a string"],
      [{ ...question, model: "" }, "model: must not be empty"],
      [{ model: "m" }, "messages: is required"],
      [{ model: "m", messages: "hi" }, "messages: must be an array of messages"],
      [{ model: "m", messages: [] }, "messages: must contain at least one message"],
      [
        { model: "m", messages: [{ role: "robot", content: "x" }] },
        "messages.0.role: must be one of system, developer, user, assistant, tool",
      ],
      [{ model: "m", messages: [{ content: "x" }] }, "messages.0.role: is required"],
      [{ model: "m", messages: [{ role: "user" }] }, "messages.0.content: is required"],
      [
        { model: "m", messages: [{ role: "user", content: 5 }] },
        "messages.0.content: must be a string, an array of content parts, or null",
      ],
      [{ ...question, stream: "yes" }, "stream: must be a boolean"],
      [[question], "request body must be a JSON object"],
    ];
    for (const [body, message] of cases) {
      const res = await chat(body);
      expect(res.status, message).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
    const badJson = await request(appWith())
      .post("/api/ai/chat")
      .set({ ...chatHeaders(), "content-type": "application/json" })
      .send('{"model": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ error: "invalid_json", message: "request body is not valid JSON" });
    expect(fake.requests.length).toBe(before);
  });

  it("accepts content parts, and an assistant turn that only calls tools", async () => {
    const body = {
      model: question.model,
      messages: [
        { role: "user", content: [{ type: "text", text: "hi" }] },
        { role: "assistant", content: null, tool_calls: [{ id: "c1", type: "function" }] },
        { role: "assistant", tool_calls: [{ id: "c2", type: "function" }] },
        { role: "tool", content: "42", tool_call_id: "c1" },
      ],
    };
    const res = await chat(body);
    expect(res.status).toBe(200);
    expect(fake.requests.at(-1)?.body).toEqual(body);
  });
});
