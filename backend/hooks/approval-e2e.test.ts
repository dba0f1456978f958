/**
 * The approval loop end to end, every part a real process or server: the backend (routes, classify hook
 * listener, job worker, LISTEN/NOTIFY bus) on its own database, the LOCAL hosting driver running a real
 * wrapper, the wrapper starting the development runtime with `--hook-pre-tool-use`, and a scripted
 * OpenAI-compatible provider on loopback behind the backend's `/api/ai/chat`. A chat job asks the agent;
 * the provider asks for a shell command; the runtime asks the hook; a person decides over the REST API.
 */
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort, openGatewayToken } from "@svc/common";
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { agents } from "@svc/db/schema";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import {
  createUser,
  DATA_KEY,
  HMAC_SECRET,
  headersFor,
  INTERNAL_API_KEY,
  readAgent,
  type TestUser,
} from "../src/runtime/testing/fixtures";
import { type LocalAgentBackend, startLocalAgentBackend } from "../src/runtime/testing/local-agents";

const DEV_RUNTIME = fileURLToPath(new URL("../../wrapper/dev-runtime/server.mjs", import.meta.url));
const database = connectDatabase(process.env.DATABASE_URL ?? "");
const agentId = "agt_approvale2e00000001";
// biome-ignore lint/suspicious/noExplicitAny: the tests assert the shapes of these JSON answers themselves
type Json = any;

let dir = "";
let workspace = "";
let provider: FakeAiProvider;
let backend: LocalAgentBackend;
let base = "";
let owner: TestUser;

/**
 * The provider's script: each user message names the command it makes the model run; once the tool's
 * result is back, the model answers with it.
 */
const COMMANDS: Record<string, string> = {
  "list the files": "ls",
  "install x": "npm install x",
  "install y": "npm install y",
  "install z": "npm install z",
};

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-approval-e2e-"));
  await chmod(dir, 0o755);
  // A stand-in `npm` first on the agent's PATH: it only leaves a marker in the directory it runs in.
  const bin = join(dir, "bin");
  await mkdir(bin, { mode: 0o755 });
  await writeFile(
    join(bin, "npm"),
    '#!/bin/sh\necho "installed $2" > "installed-$2"\necho "added 1 package: $2"\n',
    {
      mode: 0o755,
    },
  );

  provider = await startFakeAiProvider();
  provider.setResponder((body) => {
    const messages = body.messages as Array<{ role: string; content: unknown }>;
    const last = messages.at(-1);
    if (last?.role === "tool") return { content: `done: ${String(last.content)}` };
    const command = COMMANDS[String(last?.content)];
    return command ? { toolCalls: [{ name: "bash", arguments: { command } }] } : { content: "no tool" };
  });

  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  // The whole backend listener (the classify hook ahead of Express, the permission bus), with wrappers
  // starting the development runtime with --hook-pre-tool-use.
  backend = await startLocalAgentBackend(
    {
      INTERNAL_API_KEY,
      HMAC_SECRET,
      DATA_ENCRYPTION_KEY: DATA_KEY,
      RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
      BACKEND_PUBLIC_URL: base,
      AI_PROVIDER_URL: provider.url,
      AI_PROVIDER_KEY: provider.apiKey,
      PROVISION_HEALTH_TIMEOUT_MS: "60000",
    },
    {
      port,
      permissions: true,
      agentsDir: join(dir, "agents"),
      runtimeCommand: `${process.execPath} ${DEV_RUNTIME} --port {port}`,
      wrapperEnv: {
        LOG_LEVEL: "warn",
        PATH: `${bin}:${process.env.PATH ?? "/usr/bin:/bin"}`,
        PERMISSION_WAIT_SECONDS: "60",
      },
    },
  );
  owner = await createUser(database.db, { plan: "pro" });
  await database.db.insert(agents).values({ id: agentId, userId: owner.id, name: "Approvals" });
}, 120_000);

afterAll(async () => {
  await backend?.close();
  await provider?.close();
  await database.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

async function json(res: Response | Promise<Response>): Promise<Json> {
  return (await res).json();
}

const internal = { authorization: `Bearer ${INTERNAL_API_KEY}`, "content-type": "application/json" };

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
  const { url } = await readAgent(database.db, agentId);
  const res = await fetch(`${base}/api/platform-jobs/chat`, {
    method: "POST",
    headers: internal,
    body: JSON.stringify({ userId: owner.id, agentId, gatewayUrl: url, message }),
  });
  expect(res.status).toBe(202);
  return (await json(res)).job.id;
}

/** The user's pending permission requests, over the REST API. */
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
    { timeout: 20_000, interval: 50 },
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

describe("a tool call from the provider, through the hook, to a person and back", () => {
  it("provisions a local agent whose runtime has the hook and its tools", async () => {
    const res = await fetch(`${base}/api/platform-jobs/provision`, {
      method: "POST",
      headers: internal,
      body: JSON.stringify({ userId: owner.id, email: owner.email, agentId, plan: "pro" }),
    });
    expect(res.status).toBe(202);
    const job = await finishedJob((await json(res)).job.id, 60_000);
    expect(job.status).toBe("completed");
    workspace = join(dir, "agents", agentId, "state", "workspace");
    // The runtime made its workspace at start: only a runtime given --hook-pre-tool-use does.
    expect((await stat(workspace)).isDirectory()).toBe(true);
    await writeFile(join(workspace, "hello.txt"), "hi\n", { mode: 0o644 });
  }, 90_000);

  it("a safe command (ls) runs at once, and its output reaches the chat job", async () => {
    const job = await finishedJob(await chatJob("list the files"), 30_000);
    expect(job.status).toBe("completed");
    expect(job.result.reply).toBe("done: hello.txt\n[exit code 0]");
    expect(await pending()).toEqual([]);
    // The provider was offered the runtime's tools, and got the tool's result back.
    const asked = provider.requests.map((r) => r.body as Json);
    const first = asked.find((b) => b.messages.at(-1)?.content === "list the files");
    expect(first.tools.map((t: Json) => t.function.name)).toEqual(["bash", "read", "write"]);
    const second = asked.find((b) => b.messages.at(-1)?.role === "tool");
    expect(second.messages.at(-2)).toMatchObject({
      role: "assistant",
      tool_calls: [{ type: "function", function: { name: "bash", arguments: '{"command":"ls"}' } }],
    });
  });

  it("a dangerous command waits for a person; approved, it runs and the reply reaches the chat job", async () => {
    const jobId = await chatJob("install x");
    const request = await nextPending("npm install x");
    expect(request).toMatchObject({ agentId, toolName: "bash", tier: "dangerous", status: "pending" });
    expect(await exists(join(workspace, "installed-x"))).toBe(false);
    await decide(request.id, "approve");
    const job = await finishedJob(jobId, 30_000);
    expect(job.status).toBe("completed");
    expect(job.result.reply).toBe("done: added 1 package: x\n[exit code 0]");
    expect(await exists(join(workspace, "installed-x"))).toBe(true);
    expect(await pending()).toEqual([]);
  });

  it("a rejected command never runs; the model is told so", async () => {
    const jobId = await chatJob("install y");
    const request = await nextPending("npm install y");
    await decide(request.id, "reject");
    const job = await finishedJob(jobId, 30_000);
    expect(job.status).toBe("completed");
    expect(job.result.reply).toMatch(/^done: permission denied: rejected by the user \(request hook_/);
    expect(await exists(join(workspace, "installed-y"))).toBe(false);
    expect((await readdir(workspace)).sort()).toEqual(["hello.txt", "installed-x"]);
  });

  it("a caller that gives up takes its waiting call with it: approved later, it still never runs", async () => {
    const agent = await readAgent(database.db, agentId);
    const token = openGatewayToken(DATA_KEY, agent.gatewayTokenEncrypted as string);
    const caller = new AbortController();
    const asking = fetch(`${agent.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "install z" }] }),
      signal: caller.signal,
    }).catch((err: Error) => err.name);
    const request = await nextPending("npm install z");
    caller.abort();
    expect(await asking).toBe("AbortError");
    // The runtime logs its verdict once the hook is stopped; only then is the decision sent.
    await vi.waitFor(
      async () => {
        const logs = await json(
          fetch(`${base}/api/agents/${agentId}/logs?lines=500`, { headers: headersFor(owner) }),
        );
        const denied = logs.lines.some(
          (l: Json) => l.line.includes('"msg":"tool call"') && l.line.includes("the request was aborted"),
        );
        if (!denied) throw new Error("the runtime has not dropped the call yet");
      },
      { timeout: 20_000, interval: 100 },
    );
    await decide(request.id, "approve");
    expect(await exists(join(workspace, "installed-z"))).toBe(false);
  });

  it("a destructive command is refused at once, with no request for a person", async () => {
    const file = join(workspace, "hello.txt");
    const modeBefore = (await stat(file)).mode & 0o777;
    expect(modeBefore).not.toBe(0o777);
    provider.setResponder((body) => {
      const last = (body.messages as Array<{ role: string; content: unknown }>).at(-1);
      if (last?.role === "tool") return { content: `done: ${String(last.content)}` };
      return { toolCalls: [{ name: "bash", arguments: { command: "chmod 777 hello.txt" } }] };
    });
    const job = await finishedJob(await chatJob("open it up"), 30_000);
    expect(job.result.reply).toMatch(/^done: permission denied: destructive: permission change to 777/);
    expect(await pending()).toEqual([]);
    expect((await stat(file)).mode & 0o777).toBe(modeBefore);
  });
});
