/**
 * The real runtime, end to end: OpenClaw (RUNTIME_VERSION, installed by the platform's own installer; CI's
 * `.ci/run` runs `npm run runtime:install` once) started by the local driver's wrapper, deployed through the
 * real backend and job worker, its model provider the platform's AI proxy before a scripted provider on
 * loopback, every tool call through the platform's plugin to the classify hook. Nothing of OpenClaw is faked.
 * Tool calls only ever run `ls` of the agent's workspace, a stand-in `npm` of this test's own (by its absolute
 * path: OpenClaw puts the login shell's PATH first) that leaves a marker file, and `chmod 777` on a file of this
 * test. A small relay between agents and backend (their BACKEND_PUBLIC_URL) can refuse the classify hook alone,
 * to show that a guard that cannot reach the platform blocks.
 */
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, openGatewayToken, wrapperAdminPassword } from "@svc/common";
import { MANAGED_BASELINE_VERSION } from "@svc/common/runtime-version";
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { loadOrCreateDeviceIdentity } from "../../../wrapper/src/openclaw/device-identity";
import { createGatewayRpc } from "../../../wrapper/src/openclaw/rpc";
import { runtimeInstallEnv, runtimesDirOf } from "../runtime-install/config";
import { ensureRuntime } from "../runtime-install/index";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  HMAC_SECRET,
  headersFor,
  INTERNAL_API_KEY,
  type TestUser,
  testDatabase,
} from "../testing";
import { readAgent } from "./testing/fixtures";
import { type LocalAgentBackend, startLocalAgentBackend } from "./testing/local-agents";

// biome-ignore lint/suspicious/noExplicitAny: the tests assert the shapes of these JSON answers themselves
type Json = any;

const database = testDatabase();
const agentId = "agt_openclawe2e0000001";
const VERSION = process.env.RUNTIME_VERSION ?? MANAGED_BASELINE_VERSION;
const RUNTIMES_DIR = runtimesDirOf({
  RUNTIMES_DIR: runtimeInstallEnv.RUNTIMES_DIR.parse(process.env.RUNTIMES_DIR),
  DATA_DIR: runtimeInstallEnv.DATA_DIR.parse(process.env.DATA_DIR),
});
const MODEL = "fake/e2e-model";

let dir = "";
let markers = "";
let bin = "";
let provider: FakeAiProvider;
let backend: LocalAgentBackend;
let relay: { url: string; classifyDown: boolean; close(): Promise<void> };
let base = "";
let owner: TestUser;

/** The provider's script: a `RUN: <command>` message asks for the exec tool; a tool result is echoed back. */
function scriptProvider(): void {
  provider.setResponder((body, { lastUserText }) => {
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const last = messages.at(-1);
    if (last?.role === "tool") return { content: `tool said: ${textOf(last.content)}` };
    const run = /^RUN: (.+)$/.exec(lastUserText.trim());
    if (run) return { toolCalls: [{ name: "exec", arguments: { command: run[1] } }] };
    if (messages.some((m) => m.role === "system" && textOf(m.content).includes("stays in character")))
      return { content: '{"score": 0.8, "reason": "in character"}' };
    if (/what is my name/i.test(lastUserText)) {
      const told = messages.some((m) => m.role === "user" && /my name is Ada/i.test(textOf(m.content)));
      return { content: told ? "Your name is Ada." : "I do not know your name." };
    }
    return { content: `echo: ${lastUserText}` };
  });
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: { text?: unknown }) => (typeof part?.text === "string" ? part.text : ""))
    .join("");
}

/** The agents' way to the backend, able to refuse the classify hook alone (connection closed, no answer). */
async function startRelay(target: string): Promise<typeof relay> {
  const state = { classifyDown: false };
  const server: Server = createServer((req, res) => {
    if (state.classifyDown && req.url?.startsWith("/api/hooks/classify")) {
      req.socket.destroy();
      return;
    }
    const upstream = httpRequest(
      `${target}${req.url}`,
      { method: req.method, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on("error", () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    get classifyDown() {
      return state.classifyDown;
    },
    set classifyDown(down: boolean) {
      state.classifyDown = down;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

beforeAll(async () => {
  // The platform's installer; cached after the first install (CI installs before the tests).
  await ensureRuntime({ runtimesDir: RUNTIMES_DIR, version: VERSION });
  dir = await mkdtemp(join(tmpdir(), "svc-openclaw-e2e-"));
  await chmod(dir, 0o755);
  // Agents may run as their own OS users: the marker directory is theirs to write.
  markers = join(dir, "markers");
  await mkdir(markers, { mode: 0o777 });
  await chmod(markers, 0o777);
  await writeFile(join(markers, "hello.txt"), "hi\n", { mode: 0o644 });
  // A stand-in `npm` first on the agent's PATH: it only leaves a marker in this test's directory.
  bin = join(dir, "bin");
  await mkdir(bin, { mode: 0o755 });
  await writeFile(
    join(bin, "npm"),
    `#!/bin/sh\necho "installed $2" > "${markers}/installed-$2"\necho "added 1 package: $2"\n`,
    { mode: 0o755 },
  );

  provider = await startFakeAiProvider();
  scriptProvider();
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  relay = await startRelay(base);
  backend = await startLocalAgentBackend(
    {
      INTERNAL_API_KEY,
      HMAC_SECRET,
      DATA_ENCRYPTION_KEY,
      BACKEND_PUBLIC_URL: relay.url,
      AI_PROVIDER_URL: provider.url,
      AI_PROVIDER_KEY: provider.apiKey,
      AI_DEFAULT_MODEL: MODEL,
      PROVISION_HEALTH_TIMEOUT_MS: "120000",
    },
    {
      port,
      permissions: true,
      agentsDir: join(dir, "agents"),
      managedRuntime: { version: VERSION, runtimesDir: RUNTIMES_DIR },
      wrapperEnv: { LOG_LEVEL: "warn", PERMISSION_WAIT_SECONDS: "120" },
    },
  );
  owner = await createUser({ plan: "pro" });
  await database.db.insert(agents).values({ id: agentId, userId: owner.id, name: "OpenClaw" });
}, 900_000);

afterAll(async () => {
  await backend?.close();
  await relay?.close();
  await provider?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function json(res: Response | Promise<Response>): Promise<Json> {
  return (await res).json();
}

const internal = { ...headersFor("internal"), "content-type": "application/json" };

async function finishedJob(jobId: string, timeout: number): Promise<Json> {
  return vi.waitFor(
    async () => {
      const current = (await json(fetch(`${base}/api/platform-jobs/${jobId}`, { headers: internal }))).job;
      if (current.status !== "completed" && current.status !== "failed") {
        throw new Error(`${current.status}: ${current.error}`);
      }
      return current;
    },
    { timeout, interval: 100 },
  );
}

async function chatJob(message: string): Promise<string> {
  const { url } = await readAgent(agentId);
  const res = await fetch(`${base}/api/platform-jobs/chat`, {
    method: "POST",
    headers: internal,
    body: JSON.stringify({ userId: owner.id, agentId, gatewayUrl: url, message }),
  });
  expect(res.status).toBe(202);
  return (await json(res)).job.id;
}

async function chat(message: string): Promise<Json> {
  // A cold runtime's first answer, or a busy machine, can take long: the job's own deadline is 6 minutes.
  return finishedJob(await chatJob(message), 300_000);
}

function operation(method: "GET" | "POST", name: string, body?: unknown): Promise<Response> {
  return fetch(`${base}/api/agents/${agentId}/${name}`, {
    method,
    headers: { ...headersFor(owner), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

/** The agent's URL, gateway token and wrapper admin password, as the platform holds them. */
async function credentials(): Promise<{ url: string; token: string; admin: string }> {
  const agent = await readAgent(agentId);
  const token = openGatewayToken(DATA_ENCRYPTION_KEY, agent.gatewayTokenEncrypted as string);
  return {
    url: agent.url as string,
    token,
    admin: wrapperAdminPassword(DATA_ENCRYPTION_KEY, agentId, token),
  };
}

/** A call to the agent's own API (what the web's gateway client and persona service do). */
async function agentApi(method: string, path: string, body?: unknown, as: "token" | "admin" = "token") {
  const { url, token, admin } = await credentials();
  return fetch(`${url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${as === "token" ? token : admin}`,
      ...(body ? { "content-type": "application/json" } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
}

async function pending(): Promise<Json[]> {
  const res = await fetch(`${base}/api/permissions?agentId=${agentId}`, { headers: headersFor(owner) });
  expect(res.status).toBe(200);
  return (await json(res)).pending;
}

async function nextPending(command: string): Promise<Json> {
  return vi.waitFor(
    async () => {
      const found = (await pending()).find((r) => r.toolInput?.command === command);
      if (!found) throw new Error(`no pending request for ${command}`);
      return found;
    },
    { timeout: 60_000, interval: 100 },
  );
}

async function decide(requestId: string, decision: "approve" | "reject"): Promise<void> {
  const res = await fetch(`${base}/api/permissions`, {
    method: "POST",
    headers: { ...headersFor(owner), "content-type": "application/json" },
    body: JSON.stringify({ requestId, decision }),
  });
  expect(res.status).toBe(200);
  expect(await json(res)).toMatchObject({ success: true, requestId, decision, tier: "dangerous" });
}

const exists = (path: string) =>
  stat(path).then(
    () => true,
    () => false,
  );

async function agentState(): Promise<Json> {
  return json(operation("GET", "state"));
}

async function waitForState(status: string, timeout = 120_000): Promise<Json> {
  return vi.waitFor(
    async () => {
      const state = await agentState();
      const seen = state.probe?.status;
      if (seen !== status) throw new Error(`state ${JSON.stringify(state).slice(0, 300)}`);
      return state;
    },
    { timeout, interval: 250 },
  );
}

describe("a real OpenClaw agent on the platform", () => {
  it("deploys: installed runtime, valid configuration, plugin verified, running", async () => {
    const res = await fetch(`${base}/api/platform-jobs/provision`, {
      method: "POST",
      headers: internal,
      body: JSON.stringify({ userId: owner.id, email: owner.email, agentId, plan: "pro" }),
    });
    expect(res.status).toBe(202);
    const job = await finishedJob((await json(res)).job.id, 180_000);
    expect(job.error).toBeNull();
    expect(job.status).toBe("completed");
    const status = await json(fetch(`${(await credentials()).url}/api/status`));
    expect(status).toMatchObject({
      state: "running",
      running: true,
      permissionHook: "verified",
      reason: null,
    });
  }, 240_000);

  it("chats, and the second answer shows the first was remembered (one session per user)", async () => {
    const first = await chat("Hello, my name is Ada.");
    expect(first.status).toBe("completed");
    expect(first.result.reply).toBe("echo: Hello, my name is Ada.");
    const second = await chat("What is my name?");
    expect(second.result.reply).toBe("Your name is Ada.");
    // OpenClaw always streams to its provider; the platform's proxy asked for the usage itself.
    const streamed = provider.requests.filter((r) => r.body?.stream === true);
    expect(streamed.length).toBeGreaterThan(0);
    expect(streamed.every((r) => (r.streamOptions as Json)?.include_usage === true)).toBe(true);
  }, 400_000);

  it("the gateway status lists the session and the heartbeat; a heartbeat change reaches OpenClaw's setting", async () => {
    const sessions = await json(agentApi("GET", "/api/sessions"));
    expect(sessions.sessions).toEqual([
      expect.objectContaining({
        key: expect.stringContaining(`platform:${owner.id}`),
        messageCount: 4,
        lastActivityAt: expect.any(String),
      }),
    ]);
    const cron = await json(agentApi("GET", "/api/cron"));
    expect(cron.jobs).toEqual([
      expect.objectContaining({
        id: "heartbeat",
        name: "heartbeat",
        enabled: true,
        schedule: { kind: "every", everyMs: 1_800_000 },
      }),
    ]);
    const put = await agentApi("PUT", "/api/cron/heartbeat", {
      enabled: true,
      schedule: { kind: "every", everyMs: 600_000 },
    });
    expect(put.status).toBe(200);
    expect((await json(put)).job).toMatchObject({ enabled: true, schedule: { everyMs: 600_000 } });
    const file = JSON.parse(await readFile(join(dir, "agents", agentId, "state", "openclaw.json"), "utf8"));
    expect(file.agents.defaults.heartbeat.every).toBe("10m");
    const off = await agentApi("PUT", "/api/cron/heartbeat", {
      enabled: false,
      schedule: { kind: "every", everyMs: 600_000 },
    });
    expect((await json(off)).job).toMatchObject({ enabled: false, schedule: { everyMs: 600_000 } });
  }, 400_000);

  it("a safe tool call (ls) runs at once and its output reaches the chat job", async () => {
    // In the agent's own workspace, its working directory: a path outside its directory is not safe.
    await writeFile(join(dir, "agents", agentId, "state", "workspace", "hello.txt"), "hi\n", { mode: 0o644 });
    const job = await chat("RUN: ls");
    expect(job.status).toBe("completed");
    expect(job.result.reply).toContain("tool said:");
    expect(job.result.reply).toContain("hello.txt");
    expect(await pending()).toEqual([]);
    const offered = provider.requests.find((r) => lastText(r.body) === "RUN: ls")?.body as Json;
    const tools = offered.tools.map((t: Json) => t.function.name);
    expect(tools).toContain("exec");
    // The agent may not rewrite its own configuration.
    expect(tools).not.toContain("gateway");
  }, 400_000);

  it("a dangerous tool call waits for a person: pending in GET /api/permissions, runs after approve", async () => {
    const jobId = await chatJob(`RUN: ${bin}/npm install x`);
    const request = await nextPending(`${bin}/npm install x`);
    expect(request).toMatchObject({ agentId, toolName: "exec", tier: "dangerous", status: "pending" });
    expect(await exists(join(markers, "installed-x"))).toBe(false);
    await decide(request.id, "approve");
    const job = await finishedJob(jobId, 300_000);
    expect(job.status).toBe("completed");
    expect(job.result.reply).toContain("added 1 package: x");
    expect(await exists(join(markers, "installed-x"))).toBe(true);
  }, 400_000);

  it("a rejected one never runs", async () => {
    const jobId = await chatJob(`RUN: ${bin}/npm install y`);
    const request = await nextPending(`${bin}/npm install y`);
    await decide(request.id, "reject");
    const job = await finishedJob(jobId, 300_000);
    expect(job.status).toBe("completed");
    // The model is told why (the provider script echoes the tool's result).
    expect(job.result.reply).toContain(`permission denied: rejected by the user (request ${request.id})`);
    expect(await exists(join(markers, "installed-y"))).toBe(false);
  }, 400_000);

  it("a destructive one is blocked at once, with no request for a person", async () => {
    const file = join(markers, "hello.txt");
    const before = (await stat(file)).mode & 0o777;
    const job = await chat(`RUN: chmod 777 ${file}`);
    expect(job.status).toBe("completed");
    expect(job.result.reply).toContain("permission denied: destructive: permission change to 777");
    expect(await pending()).toEqual([]);
    expect((await stat(file)).mode & 0o777).toBe(before);
  }, 400_000);

  it("with the classify hook unreachable, a tool call is blocked (fail-closed)", async () => {
    relay.classifyDown = true;
    try {
      const job = await chat(`RUN: ${bin}/npm install z`);
      expect(job.status).toBe("completed");
      expect(await exists(join(markers, "installed-z"))).toBe(false);
    } finally {
      relay.classifyDown = false;
    }
  }, 400_000);

  it("persona run: the probes through the runtime, scores from the judge", async () => {
    const res = await agentApi("POST", "/api/eval/character/run", { probeSet: "quick" });
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.scores).toEqual({ voice: 0.8, emotion: 0.8, knowledge: 0.8, refusal: 0.8 });
    expect(body.history.at(-1)).toMatchObject({ probeSet: "quick", overallScore: 0.8, driftDetected: false });
    // Its probe sessions are not the user's.
    await vi.waitFor(
      async () => {
        const { sessions } = await json(agentApi("GET", "/api/sessions"));
        if (sessions.some((s: Json) => s.key.includes("persona-eval")))
          throw new Error("probe sessions left");
      },
      { timeout: 20_000, interval: 250 },
    );
  }, 400_000);

  it("pairing: a device connecting through the wrapper is listed, approved, then connects", async () => {
    const { url, token } = await credentials();
    const device = createGatewayRpc({
      port: Number(new URL(url).port),
      token,
      identity: loadOrCreateDeviceIdentity(join(dir, "device", "device.json")),
      timeoutMs: 10_000,
    });
    // Through the wrapper (forwarded headers), OpenClaw treats the device as remote: pairing is required.
    await expect(device.call("health")).rejects.toThrow(/pair/i);
    const listed = await json(agentApi("GET", "/api/pairing/pending", undefined, "admin"));
    expect(listed.ok).toBe(true);
    const request = listed.pending.find((p: Json) => p.clientId === "gateway-client");
    expect(request).toMatchObject({ requestId: expect.any(String), deviceId: expect.any(String) });
    const approved = await agentApi("POST", "/api/pairing/approve", { requestId: request.id }, "admin");
    expect(approved.status).toBe(200);
    await expect(device.call("health")).resolves.toMatchObject({ ok: true });
    device.close();
    // The gateway token is not the admin password.
    expect((await agentApi("GET", "/api/pairing/pending", undefined, "token")).status).toBe(401);
  }, 400_000);

  it("a configuration write is validated by OpenClaw and reloaded; an invalid one is 400 and keeps the file", async () => {
    const path = join(dir, "agents", agentId, "state", "openclaw.json");
    const current = (await json(agentApi("GET", "/api/config", undefined, "admin"))).config;
    const valid = structuredClone(current);
    valid.agents.defaults.timeoutSeconds = 300;
    const saved = await agentApi("POST", "/api/config", valid, "admin");
    expect(saved.status).toBe(200);
    expect(await json(saved)).toEqual({ ok: true, message: "Configuration saved; the gateway reloaded it" });
    expect(JSON.parse(await readFile(path, "utf8")).agents.defaults.timeoutSeconds).toBe(300);
    const before = await readFile(path, "utf8");
    const invalid = { ...valid, aiProvider: "openrouter" };
    const refused = await agentApi("POST", "/api/config", invalid, "admin");
    expect(refused.status).toBe(400);
    expect((await json(refused)).error).toMatch(/aiProvider/);
    expect(await readFile(path, "utf8")).toBe(before);
    // Still running, still guarded.
    expect(await json(fetch(`${(await credentials()).url}/api/status`))).toMatchObject({
      state: "running",
      permissionHook: "verified",
    });
  }, 400_000);

  it("the compatibility check applies nothing to a fresh agent's valid configuration, twice", async () => {
    const first = await operation("POST", "compat");
    expect(first.status, await first.clone().text()).toBe(200);
    const second = await operation("POST", "compat");
    expect(await json(second)).toEqual({ applied: [] });
  }, 400_000);

  it("reset memory: the next chat has no history", async () => {
    const res = await operation("POST", "reset-memory");
    expect(res.status, await res.clone().text()).toBe(200);
    await waitForState("running");
    const { sessions } = await json(agentApi("GET", "/api/sessions"));
    expect(sessions).toEqual([]);
    const job = await chat("What is my name?");
    expect(job.result.reply).toBe("I do not know your name.");
  }, 400_000);

  it("lifecycle: stop is stopped, start and restart come back running", async () => {
    expect((await operation("POST", "stop")).status).toBe(200);
    await waitForState("stopped");
    expect((await operation("POST", "start")).status).toBe(200);
    await waitForState("running");
    expect((await operation("POST", "restart")).status).toBe(200);
    await waitForState("running");
  }, 300_000);

  it("a provider failure is a failed attempt with its reason, not an answer", {
    timeout: 300_000,
  }, async () => {
    provider.setFailure({ status: 500 });
    try {
      const jobId = await chatJob("Hello?");
      const failed = await vi.waitFor(
        async () => {
          const { job } = await json(fetch(`${base}/api/platform-jobs/${jobId}`, { headers: internal }));
          if (!job.error) throw new Error(`no failed attempt yet (${job.status})`);
          return job;
        },
        // OpenClaw retries a failing provider for about half a minute before it answers.
        { timeout: 240_000, interval: 250 },
      );
      expect(failed.result).toBeNull();
      expect(failed.error).toMatch(/500|provider|LLM/i);
    } finally {
      provider.setFailure(null);
    }
  });
});

function lastText(body: Record<string, unknown> | undefined): string {
  const messages = (body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return textOf(messages.filter((m) => m.role === "user").at(-1)?.content).trim();
}
