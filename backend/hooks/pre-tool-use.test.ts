/**
 * The pre-tool-use hook script as agents run it (a child process) against real backends on loopback, and
 * two backend processes on one database (two apps, each with its OWN bus and LISTEN connection).
 */
import { spawn } from "node:child_process";
import { createServer, type Server } from "node:http";
import { fileURLToPath } from "node:url";
import { createLogger, freePort, newId, sealGatewayToken, userContextHeaders } from "@svc/common";
import { connectDatabase } from "@svc/db";
import { agents, permissionRequests, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateGatewayToken } from "../src/agents/tokens";
import { createBackendListener } from "../src/app";
import { loadBackendConfig } from "../src/config";
import { createPermissionBus, type PermissionBus, type PermissionEvent } from "../src/permissions/bus";

const SCRIPT = fileURLToPath(new URL("./pre-tool-use.mjs", import.meta.url));
const INTERNAL_API_KEY = "internal-test-key-0123456789abcdef";
const HMAC_SECRET = "hmac-test-secret-0123456789abcdef";
const KEY = "ef".repeat(32);
const logger = createLogger("hook-test", "silent");
const config = loadBackendConfig({
  DATABASE_URL: process.env.DATABASE_URL,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  DATA_ENCRYPTION_KEY: KEY,
});
// Each "process" has its own pool and its own bus, as two backend processes would.
const databaseA = connectDatabase(config.DATABASE_URL);
const databaseB = connectDatabase(config.DATABASE_URL);
const busA = createPermissionBus({ connectionString: config.DATABASE_URL, logger });
const busB = createPermissionBus({ connectionString: config.DATABASE_URL, logger });

/** B's bus as B's app sees it, with the subscriptions its routes hold counted. */
let subscribedOnB = 0;
const watchedBusB: PermissionBus = {
  ...busB,
  subscribe(listener) {
    subscribedOnB++;
    return busB.subscribe(listener);
  },
};

let serverA: Server;
let serverB: Server;
let urlA: string;
let urlB: string;

/** Events heard on A's bus. */
const heard: PermissionEvent[] = [];
const waiting: Array<() => void> = [];
busA.subscribe((event) => {
  heard.push(event);
  for (const wake of waiting.splice(0)) wake();
});
async function hear(match: (e: PermissionEvent) => boolean): Promise<PermissionEvent> {
  for (;;) {
    const found = heard.find(match);
    if (found) return found;
    await new Promise<void>((resolve) => waiting.push(resolve));
  }
}

async function serve(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return `http://127.0.0.1:${port}`;
}

let userId: string;
let agentId: string;
let token: string;
let headers: Record<string, string>;

beforeAll(async () => {
  await busA.start();
  await busB.start();
  serverA = createServer(createBackendListener({ config, database: databaseA, logger, permissionBus: busA }));
  serverB = createServer(
    createBackendListener({ config, database: databaseB, logger, permissionBus: watchedBusB }),
  );
  urlA = await serve(serverA);
  urlB = await serve(serverB);
  userId = newId("usr");
  await databaseA.db
    .insert(users)
    .values({ id: userId, email: `${userId}@example.com`, name: "U", referralCode: userId.slice(4, 16) });
  token = generateGatewayToken();
  agentId = newId("agt");
  await databaseA.db
    .insert(agents)
    .values({ id: agentId, userId, name: "A", gatewayTokenEncrypted: sealGatewayToken(KEY, token) });
  headers = {
    authorization: `Bearer ${INTERNAL_API_KEY}`,
    "content-type": "application/json",
    ...userContextHeaders(HMAC_SECRET, { userId, userEmail: `${userId}@example.com`, userRole: "user" }),
  };
});

afterAll(async () => {
  for (const server of [serverA, serverB]) {
    server?.closeAllConnections();
    await new Promise((r) => server?.close(r));
  }
  await busA.stop();
  await busB.stop();
  await databaseA.close();
  await databaseB.close();
});

interface HookRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

function runHook(input: string, env: Record<string, string>): Promise<HookRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SCRIPT], {
      env: { PATH: process.env.PATH ?? "", ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => {
      stdout += chunk;
    });
    child.stderr.on("data", (chunk) => {
      stderr += chunk;
    });
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}

function hookInput(toolName: string, toolInput: Record<string, unknown>): string {
  return JSON.stringify({
    tool_name: toolName,
    tool_input: toolInput,
    session_id: "session-1",
    hook_event_name: "PreToolUse",
  });
}

/**
 * The agent's environment. The total wait is shorter than the routes' safety-net re-read (15 s), so a
 * dangerous call is only allowed in time when the decision event wakes the long-poll.
 */
const agentEnv = () => ({
  PLATFORM_BACKEND_URL: urlA,
  OPENCLAW_GATEWAY_TOKEN: token,
  PERMISSION_WAIT_SECONDS: "12",
});

async function decide(baseUrl: string, requestId: string, decision: string) {
  const res = await fetch(`${baseUrl}/api/permissions`, {
    method: "POST",
    headers,
    body: JSON.stringify({ requestId, decision }),
  });
  expect(res.status).toBe(200);
}

/** The next dangerous request of the agent announced on the bus after `since` events. */
async function nextRequest(since: number): Promise<string> {
  const event = await hear(
    (e) => heard.indexOf(e) >= since && e.type === "permission_request" && e.request.agentId === agentId,
  );
  if (event.type !== "permission_request") throw new Error("unreachable");
  return event.request.id;
}

describe("backend/hooks/pre-tool-use.mjs", () => {
  it("safe: exit 0, nothing printed", async () => {
    const run = await runHook(hookInput("read", { path: "README.md" }), agentEnv());
    expect(run).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("destructive: exit 2 with the reason on stderr", async () => {
    const run = await runHook(hookInput("bash", { command: "rm -rf /" }), agentEnv());
    expect(run.code).toBe(2);
    expect(run.stdout).toBe("");
    expect(run.stderr).toMatch(/^permission denied: destructive: .+\n$/);
  });

  it("dangerous: waits for the user; approved → exit 0", async () => {
    const since = heard.length;
    const running = runHook(hookInput("bash", { command: "npm install left-pad" }), agentEnv());
    const id = await nextRequest(since);
    expect(id).toMatch(/^hook_/);
    await decide(urlA, id, "approve");
    expect(await running).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("dangerous: rejected → exit 2", async () => {
    const since = heard.length;
    const running = runHook(hookInput("bash", { command: "git push origin main" }), agentEnv());
    const id = await nextRequest(since);
    await decide(urlA, id, "reject");
    const run = await running;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(`rejected by the user (request ${id})`);
  });

  it("dangerous, asked on B and approved on A: B's long-poll is woken across processes", async () => {
    const since = heard.length;
    const running = runHook(hookInput("bash", { command: "npm install lodash" }), {
      PLATFORM_CLASSIFY_URL: `${urlB}/api/hooks/classify`,
      OPENCLAW_GATEWAY_TOKEN: token,
      PERMISSION_WAIT_SECONDS: "12",
    });
    const id = await nextRequest(since);
    await decide(urlA, id, "approve_always");
    expect(await running).toEqual({ code: 0, stdout: "", stderr: "" });
  });

  it("no decision within PERMISSION_WAIT_SECONDS → exit 2, the request stays pending", async () => {
    const since = heard.length;
    const run = await runHook(hookInput("bash", { command: "npm install chalk" }), {
      ...agentEnv(),
      PERMISSION_WAIT_SECONDS: "1",
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain("no decision within the wait");
    const id = await nextRequest(since);
    const [row] = await databaseA.db.select().from(permissionRequests).where(eq(permissionRequests.id, id));
    expect(row?.status).toBe("pending");
  });

  it("fail-closed: endpoint down, bad token, missing configuration or malformed input → exit 2", async () => {
    const downPort = await freePort();
    const cases: Array<[string, Record<string, string>, string]> = [
      [
        hookInput("read", { path: "x" }),
        {
          PLATFORM_CLASSIFY_URL: `http://127.0.0.1:${downPort}/api/hooks/classify`,
          OPENCLAW_GATEWAY_TOKEN: token,
        },
        "unreachable",
      ],
      [
        hookInput("read", { path: "x" }),
        { ...agentEnv(), OPENCLAW_GATEWAY_TOKEN: generateGatewayToken() },
        "401",
      ],
      [hookInput("read", { path: "x" }), { PLATFORM_BACKEND_URL: urlA }, "OPENCLAW_GATEWAY_TOKEN"],
      [hookInput("read", { path: "x" }), { OPENCLAW_GATEWAY_TOKEN: token }, "PLATFORM_CLASSIFY_URL"],
      ["{not json", agentEnv(), "not valid JSON"],
      ['{"tool_input":{}}', agentEnv(), "tool_name"],
      [hookInput("read", { path: "x" }), { ...agentEnv(), PLATFORM_BACKEND_URL: `${urlA}/nowhere` }, "404"],
    ];
    for (const [input, env, reason] of cases) {
      const run = await runHook(input, env);
      expect(run.code, reason).toBe(2);
      expect(run.stdout).toBe("");
      expect(run.stderr).toMatch(/^permission denied: /);
      expect(run.stderr).toContain(reason);
    }
  });

  it("fail-closed: a 2xx answer that is not the classify shape → exit 2", async () => {
    const answers = ['{"ok":true}', '{"allow":"yes","tier":"safe"}', "[true]", "allow", ""];
    let next = 0;
    const odd = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" }).end(answers[next++]);
    });
    const url = await serve(odd);
    try {
      for (const answer of answers) {
        const run = await runHook(hookInput("read", { path: "x" }), {
          PLATFORM_CLASSIFY_URL: `${url}/api/hooks/classify`,
          OPENCLAW_GATEWAY_TOKEN: token,
        });
        expect(run.code, answer).toBe(2);
        expect(run.stderr).toMatch(
          /^permission denied: the (classify answer is|permission endpoint answered) malformed/,
        );
      }
    } finally {
      odd.closeAllConnections();
      await new Promise((r) => odd.close(r));
    }
  });
});

describe("two backend processes on one database", () => {
  it("a decision sent to A resolves a long-poll waiting on B", async () => {
    const classified = await fetch(`${urlB}/api/hooks/classify`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ toolName: "bash", toolInput: { command: "npm install react" } }),
    });
    const { requestId } = (await classified.json()) as { requestId: string };
    expect(requestId).toMatch(/^hook_/);
    const before = subscribedOnB;
    const waitingOnB = fetch(`${urlB}/api/hooks/decision/${requestId}?wait=10`, {
      headers: { authorization: `Bearer ${token}` },
    });
    // B's route is waiting, subscribed to B's own bus; the decision is made through A. The wait is shorter
    // than the safety-net re-read (15 s): only A's event, heard on B's LISTEN connection, answers in time.
    while (subscribedOnB === before) await new Promise((r) => setTimeout(r, 2));
    await decide(urlA, requestId, "approve");
    const answer = await waitingOnB;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ status: "approved", allow: true });
  });
});
