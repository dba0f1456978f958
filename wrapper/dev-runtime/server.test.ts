/** The development runtime as a process, in front of a loopback stand-in for the backend's /api/ai/chat. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm, stat } from "node:fs/promises";
import type { IncomingMessage, ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

const SCRIPT = join(import.meta.dirname, "server.mjs");
const TOKEN = "dev-runtime-gateway-token-0123456789";
const MODEL = "test-provider/model-1";
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;

let backend: FakeUpstream;
let runtime: ChildProcess;
let base = "";
let dir = "";
let output = "";

/** The backend's /api/ai/chat: checks the agent's bearer token, answers like the AI provider. */
function answerChat(_req: IncomingMessage, res: ServerResponse, body: Buffer): void {
  if (_req.url !== "/api/ai/chat" || _req.headers.authorization !== `Bearer ${TOKEN}`) {
    sendJson(res, 401, { error: "UNAUTHORIZED", message: "unknown gateway token" });
    return;
  }
  const request = JSON.parse(body.toString()) as Json;
  const last = request.messages.at(-1);
  sendJson(res, 200, {
    id: `chatcmpl-${backend.requests.length}`,
    object: "chat.completion",
    created: 1_700_000_000,
    model: request.model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: `reply to: ${last.content}` },
        finish_reason: "stop",
      },
    ],
    usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
  });
}

/** What the backend received for the exchange whose newest message was `content`. */
function receivedFor(content: string): { headers: Json; body: Json } {
  const found = backend.requests.find(
    (r) => JSON.parse(r.body.toString()).messages.at(-1)?.content === content,
  );
  if (!found) throw new Error(`the backend got no request ending with ${JSON.stringify(content)}`);
  return { headers: found.headers, body: JSON.parse(found.body.toString()) };
}

async function startRuntime(): Promise<void> {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const { PLATFORM_BACKEND_URL: _unused, ...env } = process.env;
  runtime = spawn(process.execPath, [SCRIPT, "--port", String(port)], {
    env: {
      ...env,
      OPENCLAW_GATEWAY_TOKEN: TOKEN,
      OPENCLAW_STATE_DIR: dir,
      PLATFORM_AI_CHAT_URL: `${backend.url}/api/ai/chat`,
      DEV_RUNTIME_MODEL: MODEL,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  runtime.stdout?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  runtime.stderr?.on("data", (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await fetch(`${base}/readyz`).catch(() => null);
    if (res?.status === 200) break;
    if (runtime.exitCode !== null) throw new Error(`the runtime exited ${runtime.exitCode}: ${output}`);
    if (Date.now() > deadline) throw new Error(`the runtime did not get ready: ${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGTERM, then the exit code and signal. */
async function stopRuntime(): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (runtime.exitCode !== null) return { code: runtime.exitCode, signal: runtime.signalCode };
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    runtime.once("exit", (code, signal) => resolve({ code, signal })),
  );
  runtime.kill("SIGTERM");
  return exited;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-dev-runtime-"));
  backend = await startFakeUpstream(answerChat);
  await startRuntime();
}, 60_000);

afterAll(async () => {
  if (runtime) await stopRuntime();
  await backend?.close();
  await rm(dir, { recursive: true, force: true });
});

const auth = { authorization: `Bearer ${TOKEN}` };
const call = (path: string, init: RequestInit = {}) =>
  fetch(`${base}${path}`, {
    ...init,
    headers: { ...auth, "content-type": "application/json", ...init.headers },
  });
const json = async (res: Response | Promise<Response>): Promise<Json> => (await (await res).json()) as Json;
const chat = (body: Json, headers: Record<string, string> = {}) =>
  call("/v1/chat/completions", { method: "POST", body: JSON.stringify(body), headers });
const putJob = (name: string, body: Json) =>
  call(`/api/cron/${name}`, { method: "PUT", body: JSON.stringify(body) });

describe("development runtime", () => {
  it("answers /healthz and /readyz without a token", async () => {
    expect(await json(fetch(`${base}/healthz`))).toEqual({ ok: true });
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await json(ready)).toEqual({ ready: true });
  });

  it("answers 401 without the gateway token, with a wrong one, or another scheme", async () => {
    const routes: Array<[string, string]> = [
      ["POST", "/v1/chat/completions"],
      ["GET", "/api/sessions"],
      ["GET", "/api/cron"],
      ["PUT", "/api/cron/beat"],
      ["DELETE", "/api/cron/beat"],
      ["POST", "/api/memory/reset"],
    ];
    const before = backend.requests.length;
    for (const authorization of [undefined, `Bearer ${TOKEN}x`, "Bearer wrong", `Basic ${TOKEN}`]) {
      for (const [method, path] of routes) {
        const headers: Record<string, string> = authorization ? { authorization } : {};
        const res = await fetch(`${base}${path}`, { method, headers });
        expect(res.status, `${method} ${path} with ${authorization}`).toBe(401);
        expect((await json(res)).error).toMatchObject({ type: "authentication_error" });
      }
    }
    expect(backend.requests.length).toBe(before);
  });

  it("forwards a chat to the backend with the gateway token and answers a chat.completion", async () => {
    const res = await chat({
      model: "openclaw",
      user: "alice",
      temperature: 0.2,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello" },
      ],
    });
    expect(res.status).toBe(200);
    const completion = await json(res);
    expect(completion).toEqual({
      id: expect.stringMatching(/^chatcmpl-\d+$/),
      object: "chat.completion",
      created: 1_700_000_000,
      model: MODEL,
      choices: [
        { index: 0, message: { role: "assistant", content: "reply to: hello" }, finish_reason: "stop" },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
    });
    const received = receivedFor("hello");
    expect(received.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(received.body).toEqual({
      model: MODEL,
      user: "alice",
      temperature: 0.2,
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello" },
      ],
    });
  });

  it("gives a session its history, keeps sessions apart, and passes an explicit model through", async () => {
    expect(
      (await chat({ model: "openclaw", user: "alice", messages: [{ role: "user", content: "again" }] }))
        .status,
    ).toBe(200);
    expect(receivedFor("again").body.messages).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "reply to: hello" },
      { role: "user", content: "again" },
    ]);

    const other = await chat(
      { model: "vendor/other-model", messages: [{ role: "user", content: "first in other" }] },
      { "x-session-key": "other" },
    );
    expect((await json(other)).model).toBe("vendor/other-model");
    expect(receivedFor("first in other").body).toEqual({
      model: "vendor/other-model",
      messages: [{ role: "user", content: "first in other" }],
    });

    // A client that sends its own history gets no stored history added.
    await chat(
      {
        messages: [
          { role: "user", content: "q1" },
          { role: "assistant", content: "a1" },
          { role: "user", content: "own history" },
        ],
      },
      { "x-session-key": "other" },
    );
    expect(receivedFor("own history").body.messages).toHaveLength(3);
    expect(receivedFor("own history").body.model).toBe(MODEL);
  });

  it("rejects bad chat requests with 400 before reaching the backend", async () => {
    const before = backend.requests.length;
    const cases: Array<[string, RegExp]> = [
      [
        JSON.stringify({ stream: true, messages: [{ role: "user", content: "x" }] }),
        /streaming not supported by the development runtime/,
      ],
      ["{not json", /not valid JSON/],
      [JSON.stringify({ model: "openclaw" }), /messages is required/],
      [JSON.stringify({ messages: [] }), /at least one message/],
      [JSON.stringify({ messages: [{ role: "robot", content: "x" }] }), /messages\[0\]\.role/],
      [JSON.stringify({ messages: [{ role: "user", content: 5 }] }), /messages\[0\]\.content/],
    ];
    for (const [body, message] of cases) {
      const res = await call("/v1/chat/completions", { method: "POST", body });
      expect(res.status, body).toBe(400);
      const error = (await json(res)).error;
      expect(error.type).toBe("invalid_request_error");
      expect(error.message).toMatch(message);
    }
    expect(backend.requests.length).toBe(before);
  });

  it("answers 502 with the backend's message when the backend answers an error, recording nothing", async () => {
    const sessionsBefore = await json(call("/api/sessions"));
    backend.setHandler((_req, res) =>
      sendJson(res, 402, { error: "SUBSCRIPTION_MISMATCH", message: "the agent's plan does not match" }),
    );
    const res = await chat({ user: "alice", messages: [{ role: "user", content: "will fail" }] });
    expect(res.status).toBe(502);
    expect((await json(res)).error).toEqual({
      message: "the platform backend answered 402: the agent's plan does not match",
      type: "upstream_error",
      code: "SUBSCRIPTION_MISMATCH",
    });

    backend.setHandler((_req, res) =>
      sendJson(res, 404, { error: { message: "model not found", type: "invalid_request_error" } }),
    );
    const providerError = await chat({ messages: [{ role: "user", content: "unknown model" }] });
    expect(providerError.status).toBe(502);
    expect((await json(providerError)).error.message).toBe(
      "the platform backend answered 404: model not found",
    );
    backend.setHandler(answerChat);

    expect(await json(call("/api/sessions"))).toEqual(sessionsBefore);
  });

  it("lists sessions with their message counts", async () => {
    const { sessions } = await json(call("/api/sessions"));
    const byKey = Object.fromEntries(sessions.map((s: Json) => [s.key, s]));
    expect(Object.keys(byKey).sort()).toEqual(["alice", "other"]);
    expect(byKey.alice).toEqual({
      key: "alice",
      status: "active",
      messageCount: 4,
      lastActivityAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(byKey.other).toMatchObject({ messageCount: 4, status: "active" });
  });

  it("creates, lists, updates and deletes cron jobs, rejecting bad input", async () => {
    const bad: Array<[Json, RegExp]> = [
      [{ enabled: true }, /schedule is required/],
      [{ enabled: true, schedule: { kind: "cron", expr: "* * * * *" } }, /schedule.kind/],
      [{ enabled: true, schedule: { kind: "every", everyMs: 5 } }, /everyMs/],
      [{ schedule: { kind: "every", everyMs: 1000 } }, /enabled is required/],
      [{ enabled: true, schedule: { kind: "every", everyMs: 1000 }, extra: 1 }, /unknown field: extra/],
    ];
    for (const [body, message] of bad) {
      const res = await putJob("nightly", body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await json(res)).error.message).toMatch(message);
    }
    expect(
      (await putJob("bad%20name", { enabled: false, schedule: { kind: "every", everyMs: 1000 } })).status,
    ).toBe(400);
    expect(await json(call("/api/cron"))).toEqual({ jobs: [] });

    const created = await putJob("nightly", { enabled: false, schedule: { kind: "every", everyMs: 60_000 } });
    expect(created.status).toBe(200);
    const { job } = await json(created);
    expect(job).toEqual({
      id: expect.stringMatching(/^cron_[0-9a-f]{16}$/),
      name: "nightly",
      enabled: false,
      schedule: { kind: "every", everyMs: 60_000 },
      message: null,
      lastRunAt: null,
      nextRunAt: null,
      lastStatus: null,
      lastError: null,
    });
    expect(await json(call("/api/cron"))).toEqual({ jobs: [job] });

    const updated = await json(
      putJob("nightly", {
        enabled: true,
        schedule: { kind: "every", everyMs: 3_600_000 },
        message: "summarize",
      }),
    );
    expect(updated.job).toMatchObject({ id: job.id, enabled: true, message: "summarize", lastRunAt: null });
    expect(updated.job.nextRunAt).toEqual(expect.any(String));

    expect((await call("/api/cron/nightly", { method: "DELETE" })).status).toBe(204);
    const again = await call("/api/cron/nightly", { method: "DELETE" });
    expect(again.status).toBe(404);
    expect((await json(again)).error.type).toBe("not_found_error");
    expect(await json(call("/api/cron"))).toEqual({ jobs: [] });
  });

  it("runs a cron job's message through the chat path; a failed run is recorded and the job goes on", async () => {
    const job = (
      await json(
        putJob("beat", { enabled: true, schedule: { kind: "every", everyMs: 150 }, message: "tick" }),
      )
    ).job;
    const beat = async () => (await json(call("/api/cron"))).jobs.find((j: Json) => j.name === "beat");
    const waitFor = { timeout: 15_000, interval: 50 };

    await vi.waitFor(async () => {
      expect(await beat()).toMatchObject({ id: job.id, lastStatus: "ok", lastRunAt: expect.any(String) });
    }, waitFor);
    const received = receivedFor("tick");
    expect(received.headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(received.body.model).toBe(MODEL);
    const { sessions } = await json(call("/api/sessions"));
    expect(sessions.find((s: Json) => s.key === "cron:beat")?.messageCount).toBeGreaterThanOrEqual(2);

    backend.setHandler((_req, res) =>
      sendJson(res, 503, { error: "ai_provider_unconfigured", message: "no key" }),
    );
    await vi.waitFor(async () => {
      expect(await beat()).toMatchObject({
        lastStatus: "error",
        lastError: "the platform backend answered 503: no key",
      });
    }, waitFor);
    backend.setHandler(answerChat);
    await vi.waitFor(async () => {
      expect((await beat()).lastStatus).toBe("ok");
    }, waitFor);
    expect(output).toContain('"msg":"cron run failed"');

    expect((await call("/api/cron/beat", { method: "DELETE" })).status).toBe(204);
  });

  it("exits 0 on SIGTERM and keeps sessions and cron jobs across a restart", async () => {
    const kept = (await json(putJob("kept", { enabled: false, schedule: { kind: "every", everyMs: 1000 } })))
      .job;
    // A cron run still finishing when its job was deleted may touch cron:beat: compare the chat sessions.
    const chatSessions = async () =>
      (await json(call("/api/sessions"))).sessions.filter((s: Json) => !s.key.startsWith("cron:"));
    const sessionsBefore = await chatSessions();
    expect(sessionsBefore).toHaveLength(2);

    expect(await stopRuntime()).toEqual({ code: 0, signal: null });
    const file = await stat(join(dir, "dev-runtime", "state.json"));
    expect(file.mode & 0o777).toBe(0o600);

    await startRuntime();
    expect(await chatSessions()).toEqual(sessionsBefore);
    expect((await json(call("/api/cron"))).jobs).toEqual([kept]);

    await chat({ user: "alice", messages: [{ role: "user", content: "after restart" }] });
    expect(receivedFor("after restart").body.messages.slice(0, 4)).toEqual([
      { role: "user", content: "hello" },
      { role: "assistant", content: "reply to: hello" },
      { role: "user", content: "again" },
      { role: "assistant", content: "reply to: again" },
    ]);
  }, 60_000);

  it("resets memory: counts and deletes every session transcript", async () => {
    const count = (await json(call("/api/sessions"))).sessions.length;
    expect(count).toBeGreaterThanOrEqual(2);
    const reset = await call("/api/memory/reset", { method: "POST" });
    expect(reset.status).toBe(200);
    expect(await json(reset)).toEqual({ ok: true, deleted: count });
    expect(await json(call("/api/sessions"))).toEqual({ sessions: [] });

    await chat({ user: "alice", messages: [{ role: "user", content: "who am I?" }] });
    expect(receivedFor("who am I?").body.messages).toEqual([{ role: "user", content: "who am I?" }]);
    expect(await json(call("/api/memory/reset", { method: "POST" }))).toEqual({ ok: true, deleted: 1 });
  });

  it("answers 404 JSON for unknown paths and 405 for a wrong method", async () => {
    const missing = await fetch(`${base}/v1/models`);
    expect(missing.status).toBe(404);
    expect(await json(missing)).toEqual({
      error: { message: "no route for GET /v1/models", type: "not_found_error", code: null },
    });
    const wrongMethod = await fetch(`${base}/healthz`, { method: "POST" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
  });

  it("logs one line per request and never the token", async () => {
    expect(output).toContain('"method":"POST","path":"/v1/chat/completions","status":200');
    expect(output).toContain('"path":"/api/cron/nightly","status":204');
    expect(output).not.toContain(TOKEN);
  });
});
