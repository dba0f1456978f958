/**
 * The plugin's `before_tool_call` handler, called the way OpenClaw 2026.4.11 calls it (event `{toolName,
 * params, runId, toolCallId}`, context `{toolName, agentId, sessionKey, sessionId, runId, toolCallId}`),
 * against the real backend (classify route, decision long-poll, permissions REST route, bus) on loopback
 * with its own database; upstreams that misbehave are real servers too.
 */
import { readFileSync } from "node:fs";
import { createLogger, freePort, newId, sealGatewayToken } from "@svc/common";
import { type FakeUpstream, startFakeUpstream } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateGatewayToken } from "../../backend/src/agents/tokens";
import { createPermissionBus, type PermissionEvent } from "../../backend/src/permissions/bus";
import {
  createUser,
  DATA_ENCRYPTION_KEY,
  headersFor,
  type ServedApp,
  serveApp,
  testConfig,
  testDatabase,
  testListener,
} from "../../backend/src/testing";
import plugin, {
  createToolCallGuard,
  handlerBudgetMs,
  PLUGIN_ID,
  PLUGIN_VERSION,
  readGuardConfig,
  STATUS_METHOD,
} from "./index.js";

const logger = createLogger("plugin-test", "silent");
const config = testConfig({ DATA_ENCRYPTION_KEY });
const database = testDatabase();
const bus = createPermissionBus({ connectionString: config.DATABASE_URL, logger });

let server: ServedApp | undefined;
let base = "";
let classifyUrl = "";
let token = "";
let agentId = "";
let userHeaders: Record<string, string> = {};

/** Permission events heard on the bus, and who waits for the next one. */
const heard: PermissionEvent[] = [];
const waiting: Array<() => void> = [];
bus.subscribe((event) => {
  heard.push(event);
  for (const wake of waiting.splice(0)) wake();
});

beforeAll(async () => {
  await bus.start();
  server = await serveApp(testListener({ config, logger, permissionBus: bus }));
  base = server.url;
  classifyUrl = `${base}/api/hooks/classify`;
  const owner = await createUser();
  token = generateGatewayToken();
  agentId = newId("agt");
  await database.db.insert(agents).values({
    id: agentId,
    userId: owner.id,
    name: "A",
    gatewayTokenEncrypted: sealGatewayToken(DATA_ENCRYPTION_KEY, token),
  });
  userHeaders = headersFor(owner);
});

afterAll(async () => {
  await server?.close();
  await bus.stop();
});

/** The event and context OpenClaw passes for one tool call. */
function call(toolName: string, params: Record<string, unknown>, signal?: AbortSignal) {
  const ids = { runId: "run-1", toolCallId: newId("call") };
  return {
    event: { toolName, params, ...ids },
    ctx: {
      toolName,
      agentId: "main",
      sessionKey: "agent:main:main",
      sessionId: "session-1",
      ...ids,
      ...(signal ? { abortSignal: signal } : {}),
    },
  };
}

/** A guard for this agent; the total wait is shorter than the routes' safety-net re-read (15 s). */
function guard(overrides: Record<string, unknown> = {}, env: Record<string, string> = {}) {
  const logged: string[] = [];
  const handler = createToolCallGuard(
    { classifyUrl, waitSeconds: 12, ...overrides },
    { env: { OPENCLAW_GATEWAY_TOKEN: token, ...env }, logger: { warn: (line) => logged.push(line) } },
  );
  return {
    logged,
    run: (toolName: string, params: Record<string, unknown>, signal?: AbortSignal) => {
      const { event, ctx } = call(toolName, params, signal);
      return handler(event, ctx);
    },
  };
}

/** The next request of this agent announced on the bus after `since` events. */
async function nextRequest(since: number): Promise<{ id: string }> {
  for (;;) {
    const found = heard
      .slice(since)
      .find((e) => e.type === "permission_request" && e.request.agentId === agentId);
    if (found?.type === "permission_request") return found.request;
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

async function decide(requestId: string, decision: "approve" | "reject") {
  const res = await fetch(`${base}/api/permissions`, {
    method: "POST",
    headers: { ...userHeaders, "content-type": "application/json" },
    body: JSON.stringify({ requestId, decision }),
  });
  expect(res.status).toBe(200);
}

async function pendingRequests(): Promise<Array<Record<string, unknown>>> {
  const res = await fetch(`${base}/api/permissions?agentId=${agentId}`, { headers: userHeaders });
  expect(res.status).toBe(200);
  return ((await res.json()) as { pending: Array<Record<string, unknown>> }).pending;
}

const BLOCKED = { block: true, blockReason: expect.stringMatching(/^permission denied: /) };

describe("the before_tool_call handler against the real classify route", () => {
  it("safe calls are allowed (undefined), nothing is queued", async () => {
    const { run, logged } = guard();
    expect(await run("exec", { command: "ls -la", workdir: "src" })).toBeUndefined();
    expect(await run("read", { path: "README.md" })).toBeUndefined();
    expect(await run("process", { action: "poll", sessionId: "s1" })).toBeUndefined();
    expect(await run("sessions_list", {})).toBeUndefined();
    expect(await run("web_fetch", { url: "https://example.com/" })).toBeUndefined();
    expect(await pendingRequests()).toEqual([]);
    expect(logged).toEqual([]);
  });

  it("destructive calls are blocked at once with the classifier's reason", async () => {
    const { run, logged } = guard();
    expect(await run("exec", { command: "rm -rf /" })).toEqual({
      block: true,
      blockReason: "permission denied: destructive: recursive delete of /",
    });
    expect(await run("write", { path: "/dev/sda", content: "x" })).toEqual({
      block: true,
      blockReason: "permission denied: destructive: raw disk write: /dev/sda",
    });
    expect(await pendingRequests()).toEqual([]);
    expect(logged).toEqual([
      "platform-guard: exec blocked: permission denied: destructive: recursive delete of /",
      "platform-guard: write blocked: permission denied: destructive: raw disk write: /dev/sda",
    ]);
  });

  it("dangerous: pending until a person approves over the REST route, then allowed", async () => {
    const { run } = guard();
    const since = heard.length;
    const running = run("exec", { command: "npm install left-pad" });
    const request = await nextRequest(since);
    const [pending] = await pendingRequests();
    expect(pending).toMatchObject({
      id: request.id,
      toolName: "exec",
      toolInput: { command: "npm install left-pad" },
      tier: "dangerous",
      status: "pending",
    });
    await decide(request.id, "approve");
    expect(await running).toBeUndefined();
  });

  it("dangerous: rejected → blocked, naming the request", async () => {
    const { run } = guard();
    const since = heard.length;
    const running = run("process", { action: "kill", sessionId: "s1" });
    const request = await nextRequest(since);
    await decide(request.id, "reject");
    expect(await running).toEqual({
      block: true,
      blockReason: `permission denied: rejected by the user (request ${request.id}): process control: kill`,
    });
  });

  it("dangerous with no decision within waitSeconds → blocked; the request stays pending", async () => {
    const { run } = guard({ waitSeconds: 1 });
    const since = heard.length;
    const result = await run("exec", { command: "ls", env: { LD_PRELOAD: "/tmp/x.so" } });
    expect(result).toMatchObject(BLOCKED);
    expect(result?.blockReason).toContain("no decision within the wait");
    expect(result?.blockReason).toContain("environment assignment: LD_PRELOAD");
    const request = await nextRequest(since);
    expect((await pendingRequests()).map((r) => r.id)).toContain(request.id);
  });

  it("a code-mode exec cell (toolKind code_mode_exec, JavaScript in `command`) is not read as a shell command", async () => {
    const handler = createToolCallGuard(
      { classifyUrl, waitSeconds: 0 },
      { env: { OPENCLAW_GATEWAY_TOKEN: token } },
    );
    const { event, ctx } = call("exec", { command: "ls" });
    const result = await handler(
      { ...event, toolKind: "code_mode_exec" },
      { ...ctx, toolKind: "code_mode_exec" },
    );
    expect(result?.blockReason).toMatch(
      /^permission denied: no decision within the wait \(request hook_\w+\): code mode: runs JavaScript$/,
    );
  });

  it("a call cancelled while it waits (OpenClaw's ctx.abortSignal) → blocked", async () => {
    const { run } = guard();
    const since = heard.length;
    const cancel = new AbortController();
    const running = run("sessions_send", { sessionKey: "other", message: "hi" }, cancel.signal);
    await nextRequest(since);
    cancel.abort();
    expect(await running).toEqual({
      block: true,
      blockReason: "permission denied: the tool call was cancelled",
    });
  });
});

describe("fail-closed", () => {
  let odd: FakeUpstream;
  const answers: string[] = [];
  beforeAll(async () => {
    odd = await startFakeUpstream((_req, res) => {
      const answer = answers.shift();
      // No answer queued: hold the request open (a hung backend).
      if (answer === undefined) return;
      res.writeHead(200, { "content-type": "application/json" }).end(answer);
    });
  });
  afterAll(() => odd?.close());

  it("backend down → blocked", async () => {
    const down = `http://127.0.0.1:${await freePort()}/api/hooks/classify`;
    const result = await guard({ classifyUrl: down }).run("read", { path: "x" });
    expect(result).toMatchObject(BLOCKED);
    expect(result?.blockReason).toContain("the permission endpoint is unreachable");
  });

  it("classify takes longer than classifyTimeoutMs → blocked", async () => {
    const result = await guard({ classifyUrl: `${odd.url}/api/hooks/classify`, classifyTimeoutMs: 200 }).run(
      "read",
      { path: "x" },
    );
    expect(result).toEqual({
      block: true,
      blockReason: "permission denied: the permission endpoint is unreachable (timeout)",
    });
  });

  it("a non-2xx answer → blocked with its status", async () => {
    const notFound = await guard({ classifyUrl: `${base}/api/hooks/nowhere` }).run("read", { path: "x" });
    expect(notFound?.blockReason).toMatch(/^permission denied: the permission endpoint answered 404/);
    const wrongToken = await guard({}, { OPENCLAW_GATEWAY_TOKEN: generateGatewayToken() }).run("read", {
      path: "x",
    });
    expect(wrongToken?.blockReason).toBe(
      "permission denied: the permission endpoint answered 401: invalid agent gateway token",
    );
  });

  it("a 2xx answer that is not the classify shape → blocked", async () => {
    const malformed = ['{"ok":true}', '{"allow":"yes","tier":"safe"}', "[true]", "allow", ""];
    answers.push(...malformed);
    for (const answer of malformed) {
      const result = await guard({ classifyUrl: `${odd.url}/api/hooks/classify` }).run("read", { path: "x" });
      expect(result?.blockReason, answer).toMatch(
        /^permission denied: the (classify answer is|permission endpoint answered) malformed/,
      );
    }
  });

  it("a malformed decision answer while waiting → blocked", async () => {
    answers.push(JSON.stringify({ allow: false, tier: "dangerous", reason: "r", requestId: "hook_x" }));
    answers.push(JSON.stringify({ status: "maybe" }));
    const result = await guard({ classifyUrl: `${odd.url}/api/hooks/classify` }).run("exec", {
      command: "x",
    });
    expect(result).toEqual({
      block: true,
      blockReason: "permission denied: the decision answer is malformed",
    });
    expect(odd.requests.at(-1)?.path).toBe("/api/hooks/decision/hook_x?wait=12");
  });

  it("no gateway token in the environment → blocked", async () => {
    const handler = createToolCallGuard({ classifyUrl }, { env: {} });
    const { event, ctx } = call("read", { path: "x" });
    expect(await handler(event, ctx)).toEqual({
      block: true,
      blockReason: "permission denied: the agent's gateway token (OPENCLAW_GATEWAY_TOKEN) is not set",
    });
  });

  it("a missing or bad configuration → every call blocked", async () => {
    const cases: Array<[unknown, string]> = [
      [undefined, "the plugin has no configuration"],
      [{}, "the classify URL (classifyUrl) is not set"],
      [{ classifyUrl, waitSeconds: "soon" }, "waitSeconds must be a number of at least 0"],
      [{ classifyUrl, classifyTimeoutMs: 0 }, "classifyTimeoutMs must be a positive number"],
      [{ classifyUrl: "ftp://x/classify" }, "the classify URL (classifyUrl) is not an http(s) URL"],
    ];
    for (const [pluginConfig, reason] of cases) {
      const handler = createToolCallGuard(pluginConfig, { env: { OPENCLAW_GATEWAY_TOKEN: token } });
      const { event, ctx } = call("read", { path: "x" });
      const result = await handler(event, ctx);
      expect(result?.blockReason, reason).toContain(reason);
    }
  });

  it("an event without a tool name → blocked", async () => {
    const handler = createToolCallGuard({ classifyUrl }, { env: { OPENCLAW_GATEWAY_TOKEN: token } });
    // biome-ignore lint/suspicious/noExplicitAny: OpenClaw's event, malformed on purpose
    expect(await handler({ params: {} } as any, {})).toEqual({
      block: true,
      blockReason: "permission denied: the tool call has no name",
    });
  });

  it("the token never appears in a reason or a log line", async () => {
    const { run, logged } = guard();
    const results = [
      await run("exec", { command: `echo ${token}; rm -rf /` }),
      await guard({ classifyUrl: `${base}/api/hooks/nowhere` }).run("read", { path: "x" }),
    ];
    for (const text of [...results.map((r) => r?.blockReason ?? ""), ...logged]) {
      expect(text).not.toContain(token);
    }
  });
});

describe("register", () => {
  it("registers the handler (with a budget covering the wait) and the status method, nothing else", async () => {
    const hooks: Array<{ name: string; options: unknown }> = [];
    const methods: Array<{ name: string; options: unknown; handler: (req: never) => void }> = [];
    const pluginConfig = { classifyUrl, waitSeconds: 60 };
    plugin.register({
      pluginConfig,
      on: (name, _handler, options) => hooks.push({ name, options }),
      registerGatewayMethod: (name, handler, options) => methods.push({ name, handler, options }),
    });
    expect(hooks).toEqual([{ name: "before_tool_call", options: { timeoutMs: 90_000 } }]);
    expect(handlerBudgetMs(readGuardConfig(pluginConfig))).toBe(90_000);
    expect(methods.map(({ name, options }) => ({ name, options }))).toEqual([
      { name: STATUS_METHOD, options: { scope: "operator.read" } },
    ]);
    const answers: unknown[] = [];
    methods[0].handler({
      respond: (ok: boolean, payload: unknown) => answers.push({ ok, payload }),
    } as never);
    expect(answers).toEqual([
      { ok: true, payload: { loaded: true, id: "platform-guard", version: PLUGIN_VERSION } },
    ]);
  });

  it("id and version agree with openclaw.plugin.json and package.json", () => {
    const manifest = JSON.parse(readFileSync(new URL("./openclaw.plugin.json", import.meta.url), "utf8"));
    const pkg = JSON.parse(readFileSync(new URL("./package.json", import.meta.url), "utf8"));
    expect([plugin.id, manifest.id]).toEqual([PLUGIN_ID, PLUGIN_ID]);
    expect([manifest.version, pkg.version]).toEqual([PLUGIN_VERSION, PLUGIN_VERSION]);
    expect(pkg.openclaw.extensions).toEqual(["./index.js"]);
  });
});
