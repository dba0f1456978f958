/**
 * The fake runtime gateway (agent-runtime.mjs, run as the runtime process) speaks the runtime HTTP surface the
 * platform uses: readiness, chat completions behind the gateway token, sessions, cron, memory reset, and
 * the crash and hang knobs other tests rely on.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "../../src/net";
import { startFakeAgentRuntime } from "./agent-runtime.mjs";

const FAKE_RUNTIME = fileURLToPath(new URL("./agent-runtime.mjs", import.meta.url));
const TOKEN = "fake-runtime-token";
const children: ChildProcess[] = [];

async function startRuntime(env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [FAKE_RUNTIME], {
    env: {
      PATH: process.env.PATH,
      OPENCLAW_GATEWAY_PORT: String(port),
      OPENCLAW_GATEWAY_TOKEN: TOKEN,
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  // Listening is announced on stdout.
  await new Promise<void>((resolve) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      if (chunk.toString().includes("listening")) resolve();
    });
  });
  return { base: `http://127.0.0.1:${port}`, child };
}

afterAll(() => {
  for (const child of children) if (child.exitCode === null) child.kill("SIGKILL");
});

const bearer = { authorization: `Bearer ${TOKEN}` };
const jsonHeaders = { ...bearer, "content-type": "application/json" };
const chat = (base: string, body: unknown, headers: Record<string, string> = jsonHeaders) =>
  fetch(`${base}/v1/chat/completions`, { method: "POST", headers, body: JSON.stringify(body) });

describe("fake runtime readiness", () => {
  it("answers /healthz and /readyz 503 until ready, then 200", async () => {
    const { base } = await startRuntime({ FAKE_RUNTIME_READY_AFTER_MS: "1500" });
    const early = await Promise.all([fetch(`${base}/healthz`), fetch(`${base}/readyz`)]);
    expect(early.map((r) => r.status)).toEqual([503, 503]);
    expect(await early[1].json()).toEqual({ ready: false });
    for (;;) {
      const res = await fetch(`${base}/readyz`);
      if (res.status === 200) {
        expect(await res.json()).toEqual({ ready: true });
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(await (await fetch(`${base}/healthz`)).json()).toEqual({ ok: true });
  });
});

describe("fake runtime gateway surface", () => {
  let base = "";
  beforeAll(async () => {
    ({ base } = await startRuntime({ FAKE_RUNTIME_READY_AFTER_MS: "0" }));
  });

  it("chat completions: 401 without the gateway token, 400 for bad bodies, a deterministic reply", async () => {
    const body = { messages: [{ role: "user", content: "hello runtime" }] };
    expect((await chat(base, body, { "content-type": "application/json" })).status).toBe(401);
    expect(
      (await chat(base, body, { authorization: "Bearer other", "content-type": "application/json" })).status,
    ).toBe(401);
    expect((await chat(base, { messages: [] })).status).toBe(400);
    const res = await chat(base, {
      model: "m-1",
      messages: [
        { role: "system", content: "be brief" },
        { role: "user", content: "hello runtime" },
      ],
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      object: "chat.completion",
      model: "m-1",
      choices: [
        {
          index: 0,
          message: { role: "assistant", content: "runtime heard: hello runtime" },
          finish_reason: "stop",
        },
      ],
      usage: { prompt_tokens: 4, completion_tokens: 4, total_tokens: 8 },
    });
  });

  it("streams the reply as server-sent chunks when asked", async () => {
    const res = await chat(base, {
      stream: true,
      user: "streamer",
      messages: [{ role: "user", content: "stream me" }],
    });
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    expect(text).toContain('"content":"runtime heard: stream me"');
    expect(text.trim().endsWith("data: [DONE]")).toBe(true);
  });

  it("sessions count the messages per session key", async () => {
    expect((await fetch(`${base}/api/sessions`)).status).toBe(401);
    const res = await fetch(`${base}/api/sessions`, { headers: bearer });
    const { sessions } = (await res.json()) as { sessions: Record<string, unknown>[] };
    expect(sessions).toEqual([
      { key: "main", status: "active", messageCount: 2, lastActivityAt: expect.any(String) },
      { key: "streamer", status: "active", messageCount: 2, lastActivityAt: expect.any(String) },
    ]);
  });

  it("cron jobs: put, list, validate, delete", async () => {
    const cron = (path: string, init: RequestInit = {}) =>
      fetch(`${base}/api/cron${path}`, { ...init, headers: { ...jsonHeaders, ...(init.headers ?? {}) } });
    expect((await fetch(`${base}/api/cron`)).status).toBe(401);
    expect(await (await cron("")).json()).toEqual({ jobs: [] });
    const put = await cron("/heartbeat", {
      method: "PUT",
      body: JSON.stringify({ enabled: true, schedule: { kind: "every", everyMs: 60_000 }, message: "ping" }),
    });
    expect(put.status).toBe(200);
    const { job } = (await put.json()) as { job: Record<string, unknown> };
    expect(job).toEqual({
      id: "cron_heartbeat",
      name: "heartbeat",
      enabled: true,
      schedule: { kind: "every", everyMs: 60_000 },
      lastRunAt: null,
      nextRunAt: expect.any(String),
      message: "ping",
    });
    const disabled = await cron("/heartbeat", {
      method: "PUT",
      body: JSON.stringify({ enabled: false, schedule: { kind: "every", everyMs: 30_000 } }),
    });
    expect(((await disabled.json()) as { job: Record<string, unknown> }).job).toMatchObject({
      enabled: false,
      nextRunAt: null,
      message: "ping",
    });
    for (const bad of [
      { enabled: "yes", schedule: { kind: "every", everyMs: 1 } },
      { enabled: true, schedule: { kind: "cron" } },
    ]) {
      expect((await cron("/x", { method: "PUT", body: JSON.stringify(bad) })).status).toBe(400);
    }
    expect(((await (await cron("")).json()) as { jobs: unknown[] }).jobs).toHaveLength(1);
    expect((await cron("/heartbeat", { method: "DELETE" })).status).toBe(204);
    expect((await cron("/heartbeat", { method: "DELETE" })).status).toBe(404);
  });

  it("memory reset deletes every stored memory and the sessions", async () => {
    const reset = () => fetch(`${base}/api/memory/reset`, { method: "POST", headers: bearer });
    expect((await fetch(`${base}/api/memory/reset`, { method: "POST" })).status).toBe(401);
    expect(await (await reset()).json()).toEqual({ ok: true, deleted: 2 });
    expect(await (await reset()).json()).toEqual({ ok: true, deleted: 0 });
    expect(await (await fetch(`${base}/api/sessions`, { headers: bearer })).json()).toEqual({ sessions: [] });
  });

  it("keeps its other routes (/whoami, /env?all=1)", async () => {
    expect(await (await fetch(`${base}/whoami`)).json()).toEqual({ token: TOKEN });
    const env = (await (await fetch(`${base}/env?all=1`)).json()) as Record<string, string>;
    expect(env.OPENCLAW_GATEWAY_TOKEN).toBe(TOKEN);
    expect(env.PATH).toBe(process.env.PATH);
  });
});

describe("fake runtime failure knobs", () => {
  it("POST /hang: no request is answered any more", async () => {
    const { base } = await startRuntime({ FAKE_RUNTIME_READY_AFTER_MS: "0" });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${base}/hang`, { method: "POST" })).json()).toEqual({ ok: true });
    await expect(fetch(`${base}/healthz`, { signal: AbortSignal.timeout(300) })).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });

  it("FAKE_RUNTIME_HANG_AFTER_MS=0 hangs from the start", async () => {
    const { base } = await startRuntime({ FAKE_RUNTIME_HANG_AFTER_MS: "0" });
    await expect(fetch(`${base}/healthz`, { signal: AbortSignal.timeout(300) })).rejects.toMatchObject({
      name: "TimeoutError",
    });
  });

  it("FAKE_RUNTIME_CRASH_AFTER_MS exits with code 3", async () => {
    const { child } = await startRuntime({ FAKE_RUNTIME_CRASH_AFTER_MS: "100" });
    const [code] = await once(child, "exit");
    expect(code).toBe(3);
  });
});

describe("fake runtime as an agent wrapper (the watchdog's knobs)", () => {
  it("reports gatewayState, stops the gateway for the admin password only, drops connections while down", async () => {
    const seen: string[] = [];
    const runtime = await startFakeAgentRuntime({
      wrapper: true,
      env: { WRAPPER_ADMIN_PASSWORD: "admin-pw" },
      onRequest: (request) => seen.push(`${request.method} ${request.path}`),
    });
    try {
      const status = async () => (await fetch(`${runtime.url}/api/status`)).json();
      expect(await status()).toEqual({ state: "running", running: true, configured: true });
      runtime.running = false;
      runtime.gatewayState = "crashed";
      expect(await status()).toEqual({ state: "crashed", running: false, configured: true });
      expect((await fetch(`${runtime.url}/healthz`)).status).toBe(503);

      const stop = (password: string) =>
        fetch(`${runtime.url}/api/gateway/stop`, {
          method: "POST",
          headers: { authorization: `Bearer ${password}` },
        });
      const refused = await stop("wrong");
      expect([refused.status, await refused.json()]).toEqual([401, { ok: false, error: "unauthorized" }]);
      expect(runtime.gatewayState).toBe("crashed");
      const stopped = await stop("admin-pw");
      expect([stopped.status, await stopped.json()]).toEqual([200, { ok: true, message: "gateway stopped" }]);
      expect(await status()).toEqual({ state: "stopped", running: false, configured: true });

      runtime.down = true;
      await expect(fetch(`${runtime.url}/api/status`)).rejects.toThrow();
      runtime.down = false;
      expect((await fetch(`${runtime.url}/api/status`)).status).toBe(200);
      expect(seen).toEqual([
        "GET /api/status",
        "GET /api/status",
        "GET /healthz",
        "POST /api/gateway/stop",
        "POST /api/gateway/stop",
        "GET /api/status",
        "GET /api/status",
        "GET /api/status",
      ]);
    } finally {
      await runtime.close();
    }
  });
});
