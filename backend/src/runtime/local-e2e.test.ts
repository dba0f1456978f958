/**
 * End to end on this machine: the real backend (routes + job worker) with the LOCAL hosting driver, which
 * runs real wrapper processes in front of the fake runtime (common/testing/fakes/agent-runtime.mjs).
 * Provisioning through the queue, then the operations and the proxy against the live agent. The backend is
 * ./testing/local-agents.ts, the one the dashboard's e2e tests deploy agents with.
 */

import { openGatewayToken, wrapperAdminPassword } from "@svc/common";
import { startAgentImpostor } from "@svc/common/testing";
import { agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";
import { dispatchTask } from "../scheduled-tasks/dispatch";
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

const database = testDatabase();
let backend: LocalAgentBackend;
let base = "";
let owner: TestUser;
const agentId = "agt_locale2e0000000001";

beforeAll(async () => {
  backend = await startLocalAgentBackend({
    INTERNAL_API_KEY,
    HMAC_SECRET,
    DATA_ENCRYPTION_KEY,
    RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
  });
  base = backend.url;
  owner = await createUser({ plan: "pro" });
  await database.db.insert(agents).values({ id: agentId, userId: owner.id, name: "Local" });
});

afterAll(async () => {
  await backend?.close();
});

function op(method: "GET" | "POST", name: string, body?: unknown) {
  return fetch(`${base}/api/agents/${agentId}/${name}`, {
    method,
    headers: { ...headersFor(owner), ...(body ? { "content-type": "application/json" } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
}

function proxied(path: string, init: RequestInit = {}) {
  return fetch(`${base}/api/runtime/proxy/${agentId}${path}`, {
    ...init,
    headers: { ...headersFor(owner), ...(init.headers as Record<string, string>) },
  });
}

// biome-ignore lint/suspicious/noExplicitAny: the tests assert the shapes of these JSON answers themselves
type Json = any;

/** A response's JSON body. */
async function json(res: Response | Promise<Response>): Promise<Json> {
  return (await res).json();
}

async function storedToken(): Promise<string> {
  return openGatewayToken(DATA_ENCRYPTION_KEY, (await readAgent(agentId)).gatewayTokenEncrypted as string);
}

/** A chat job for the agent; resolves once it completed (or, with `settled`, once an attempt ended). */
const chatJob = async (message: string, { settled = false } = {}) => {
  const res = await fetch(`${base}/api/platform-jobs/chat`, {
    method: "POST",
    headers: { ...headersFor("internal"), "content-type": "application/json" },
    body: JSON.stringify({
      userId: owner.id,
      agentId,
      gatewayUrl: (await readAgent(agentId)).url,
      message,
    }),
  });
  expect(res.status).toBe(202);
  const { job } = await json(res);
  return vi.waitFor(
    async () => {
      const read = await fetch(`${base}/api/platform-jobs/${job.id}`, {
        headers: headersFor("internal"),
      });
      const current = (await json(read)).job;
      if (current.status === "completed" || (settled && current.attempts > 0 && current.error))
        return current;
      throw new Error(`${current.status}: ${current.error}`);
    },
    { timeout: 20_000, interval: 100 },
  );
};

describe("a local agent from provisioning to maintenance", () => {
  it("provisions through POST /api/platform-jobs/provision and the worker", async () => {
    const res = await fetch(`${base}/api/platform-jobs/provision`, {
      method: "POST",
      headers: { ...headersFor("internal"), "content-type": "application/json" },
      body: JSON.stringify({ userId: owner.id, email: owner.email, agentId, plan: "pro" }),
    });
    expect(res.status).toBe(202);
    const { job } = await json(res);
    const done = await vi.waitFor(
      async () => {
        const read = await fetch(`${base}/api/platform-jobs/${job.id}`, {
          headers: headersFor("internal"),
        });
        const current = (await json(read)).job;
        if (current.status !== "completed") throw new Error(`${current.status}: ${current.error}`);
        return current;
      },
      { timeout: 40_000, interval: 100 },
    );
    const agent = await readAgent(agentId);
    expect(done.result).toEqual({
      agentId,
      url: agent.url,
      serviceId: agentId,
      image: "ghcr.io/openclaw/openclaw:latest",
      version: "2026.4.11",
    });
    expect(agent).toMatchObject({
      status: "running",
      runtimeServiceId: agentId,
      hostingProvider: "local",
      plan: "pro",
    });
    expect(await storedToken()).toMatch(/^[0-9a-f]{64}$/);
  });

  it("a chat job is answered by the agent, before and after a restart", async () => {
    expect((await chatJob("first words")).result.reply).toBe("runtime heard: first words");
    const restarted = await op("POST", "restart");
    expect(restarted.status).toBe(200);
    await vi.waitFor(
      async () => {
        const health = await json(op("GET", "health"));
        if (health.status !== "running") throw new Error(`health ${health.status}`);
      },
      { timeout: 20_000, interval: 100 },
    );
    expect((await chatJob("after the restart")).result.reply).toBe("runtime heard: after the restart");
  });

  it("state and health see it running; stats are the driver's figures", async () => {
    const state = await json(op("GET", "state"));
    expect(state.probe.status).toBe("running");
    const health = await json(op("GET", "health"));
    expect(health).toMatchObject({ agentId, status: "running" });
    const stats = await json(op("GET", "stats"));
    expect(stats.memoryLimitBytes).toBeNull();
    expect(stats.telemetry).toEqual({ restartCounts: false, lastExit: false, perMessage: false });
  });

  it("logs are the agent's own output, newest last, limited by ?lines=", async () => {
    const logs = await json(op("GET", "logs?lines=500"));
    expect(logs.lines.length).toBeGreaterThan(0);
    expect(logs.lines[0]).toMatchObject({
      ts: expect.any(String),
      stream: expect.stringMatching(/^std(out|err)$/),
    });
    expect((await json(op("GET", "logs?lines=1"))).lines).toHaveLength(1);
    expect((await op("GET", "logs?lines=0")).status).toBe(400);
  });

  it("the proxy reaches the runtime with the agent's token (HTTP and WebSocket)", async () => {
    const chat = await proxied("/v1/chat/completions", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ messages: [{ role: "user", content: "remember this" }] }),
    });
    expect(chat.status).toBe(200);
    expect((await json(chat)).choices[0].message.content).toBe("runtime heard: remember this");

    const ws = new WebSocket(`${base.replace("http", "ws")}/api/runtime/proxy/${agentId}/ws`, {
      headers: { authorization: `Bearer ${await storedToken()}` },
    });
    await new Promise((resolve, reject) => {
      ws.once("open", resolve);
      ws.once("error", reject);
    });
    const echoed = new Promise<string>((resolve) => ws.once("message", (data) => resolve(data.toString())));
    ws.send("through wrapper and proxy");
    expect(await echoed).toBe("through wrapper and proxy");
    ws.close();
  });

  it("reset-memory deletes what the runtime remembered", async () => {
    const res = await op("POST", "reset-memory");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body).toMatchObject({ ok: true, action: "reset-memory" });
    expect(body.deleted).toBeGreaterThanOrEqual(1);
  });

  it("the compatibility check fixes the real wrapper config once", async () => {
    // What an earlier platform version wrote, and OpenClaw refuses.
    const token = await storedToken();
    const { url } = await readAgent(agentId);
    const written = await fetch(`${url}/api/config`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${wrapperAdminPassword(DATA_ENCRYPTION_KEY, agentId, token)}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ aiProvider: "openrouter", gateway: { pairing: { scopes: ["operator.read"] } } }),
    });
    expect(written.status).toBe(200);
    const first = await json(op("POST", "compat"));
    expect(first).toEqual({ applied: ["legacy-platform-keys"] });
    expect(await json(op("POST", "compat"))).toEqual({ applied: [] });
  });

  it("heal-token: a new token reaches the agent, the old one stops working", async () => {
    const old = await storedToken();
    const res = await op("POST", "heal-token");
    expect(res.status).toBe(200);
    const body = await json(res);
    expect(body.ok).toBe(true);
    const healed = await storedToken();
    expect(healed).not.toBe(old);
    const { url } = await readAgent(agentId);
    const ask = (token: string) =>
      fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
      });
    expect((await ask(old)).status).toBe(401);
    expect((await ask(healed)).status).toBe(200);
  });

  it("stopped: nothing is sent to it; another agent on its old port gets no token from any caller", async () => {
    expect((await op("POST", "stop")).status).toBe(200);
    const stopped = await readAgent(agentId);
    expect(stopped.status).toBe("stopped");
    expect(await chatJob("while stopped", { settled: true })).toMatchObject({
      status: "queued",
      error: `agent ${agentId} is stopped, not running: nothing was sent to it`,
    });
    // Another agent binds the stopped wrapper's port; the row says running (a crash nobody saw yet).
    const impostor = await startAgentImpostor({ port: Number(new URL(stopped.url as string).port) });
    try {
      await database.db.update(agents).set({ status: "running" }).where(eq(agents.id, agentId));
      const notProven = `the agent at 127.0.0.1:${impostor.port} did not prove it is the agent meant (wrong proof); nothing was sent to it`;
      expect(await chatJob("to whoever listens", { settled: true })).toMatchObject({
        status: "queued",
        error: notProven,
      });
      const agent = await readAgent(agentId);
      const claim = { url: agent.url, token: agent.gatewayTokenEncrypted, status: agent.status };
      expect(
        await dispatchTask(
          { dataEncryptionKey: DATA_ENCRYPTION_KEY },
          {
            id: "task_e2e",
            userId: owner.id,
            agentId,
            cronSchedule: "* * * * *",
            prompt: "scheduled",
            scheduledAt: new Date(),
            claimedAt: new Date(),
            attempts: 0,
            maxAttempts: 5,
            agent: claim,
          },
        ),
      ).toEqual({ ok: false, error: notProven });
      const proxiedChat = await proxied("/v1/chat/completions", { method: "POST", body: "{}" });
      expect(proxiedChat.status).toBe(502);
      expect((await op("POST", "compat")).status).toBe(500);
      expect((await op("POST", "reset-memory")).status).toBe(500);
      expect(impostor.credentials).toEqual([]);
      expect(new Set(impostor.requests.map((r) => r.path.split("?")[0]))).toEqual(new Set(["/api/identity"]));
    } finally {
      await impostor.close();
      await database.db.update(agents).set({ status: "stopped" }).where(eq(agents.id, agentId));
    }
  });

  it("stop, then start again", async () => {
    expect((await op("POST", "stop")).status).toBe(200);
    expect((await readAgent(agentId)).status).toBe("stopped");
    // The platform stopped it: its health reads "stopped", as the state read does (not "unreachable").
    const down = await json(op("GET", "health"));
    expect(down.status).toBe("stopped");
    expect((await op("POST", "start")).status).toBe(200);
    const up = await vi.waitFor(
      async () => {
        const health = await json(op("GET", "health"));
        if (health.status !== "running") throw new Error(health.status);
        return health;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect(up.status).toBe("running");
  });
});
