/**
 * The local driver end to end: real wrapper processes (`wrapper/src/server.ts`) running the fake runtime
 * (common/testing/fakes/agent-runtime.mjs), probed with the shared probe and called through their URLs.
 * Waiting for an agent to come up is waiting for its wrapper's `running` event (/api/events), never for a
 * probe that has to answer within a time limit: on a loaded machine those limits are what runs out.
 */
import { mkdtemp, rm, stat } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { createLogger, wrapperAdminPassword } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { probeRuntime } from "../runtime/probe";
import { createLocalHostingPlatform, type LocalHostingPlatform } from "./local";
import { LocalServiceStore } from "./local-store";
import { isGroupAlive, isProcessAlive, signalGroup } from "./proc";
import { testAgentEnvironment } from "./testing/agent-env";
import { wrapperReaches } from "./testing/wrapper-events";
import { agentServiceName, type HostedService } from "./types";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
const IMAGE = "ghcr.io/openclaw/openclaw:2026.4.11";
const DATA_KEY = "cd".repeat(32);
let dir = "";
const drivers: LocalHostingPlatform[] = [];

function driver(): LocalHostingPlatform {
  const platform = createLocalHostingPlatform({
    agentsDir: dir,
    runtimeCommand: `${process.execPath} ${FAKE_RUNTIME}`,
    wrapperEnv: { LOG_LEVEL: "info", RUNTIME_HEALTH_POLL_MS: "50", FAKE_RUNTIME_READY_AFTER_MS: "50" },
    stopTimeoutMs: 5_000,
    statsSampleMs: 100,
    // A restore that fails only logs: its reason shows in the test's output.
    logger: createLogger("local-hosting-test", "error"),
  });
  drivers.push(platform);
  return platform;
}

/** The wrapper admin password the platform derives for an agent's token. */
const adminPassword = (agentId: string, token: string) => wrapperAdminPassword(DATA_KEY, agentId, token);

function envFor(agentId: string, token: string) {
  return testAgentEnvironment(agentId, token, adminPassword(agentId, token));
}

/** The shared probe with the spec's timeouts, asked once the wrapper said it is running. */
const probeStatus = async (url: string) => (await probeRuntime(url)).status;

async function chat(url: string, token: string, message: string) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ messages: [{ role: "user", content: message }] }),
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-local-hosting-"));
});

afterAll(async () => {
  for (const platform of drivers) await platform.close();
  // Whatever a failed test left running.
  for (const record of await new LocalServiceStore(dir).all()) {
    if (record.pid && (await isProcessAlive(record.pid, record.pidStart))) signalGroup(record.pid, "SIGKILL");
  }
  await rm(dir, { recursive: true, force: true });
});

describe("local hosting driver", () => {
  let platform: LocalHostingPlatform;
  let a: HostedService;
  let b: HostedService;

  it("creates an agent that the probe finds running and that answers chat with its token", async () => {
    platform = driver();
    await platform.ping();
    a = await platform.create({
      agentId: "agt_alpha",
      name: agentServiceName("agt_alpha"),
      image: IMAGE,
      env: envFor("agt_alpha", "token-alpha"),
    });
    expect(a).toMatchObject({ id: "agt_alpha", name: "agent-alpha", image: IMAGE });
    expect(a.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(["deploying", "running"]).toContain(a.status);
    await wrapperReaches(a.url as string, adminPassword("agt_alpha", "token-alpha"));
    expect(await probeStatus(a.url as string)).toBe("running");

    const res = await chat(a.url as string, "token-alpha", "hello there");
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0].message.content).toBe("runtime heard: hello there");
    expect((await chat(a.url as string, "wrong-token", "hi")).status).toBe(401);

    expect(await platform.find({ id: "agt_alpha", name: "ignored" })).toMatchObject({ status: "running" });
    expect(await platform.find({ name: "agent-alpha" })).toMatchObject({ id: "agt_alpha" });
    expect(await platform.find({ id: "agt_nobody", name: "agent-nobody" })).toBeNull();
    const record = await stat(join(dir, "agt_alpha", "service.json"));
    expect(record.mode & 0o777).toBe(0o600);
  });

  it("runs a second agent side by side on its own ports and token", async () => {
    b = await platform.create({
      agentId: "agt_beta",
      name: agentServiceName("agt_beta"),
      image: IMAGE,
      env: envFor("agt_beta", "token-beta"),
    });
    await wrapperReaches(b.url as string, adminPassword("agt_beta", "token-beta"));
    expect(b.url).not.toBe(a.url);
    expect(b.metadata.runtimePort).not.toBe(a.metadata.runtimePort);
    expect((await chat(b.url as string, "token-beta", "to beta")).status).toBe(200);
    expect((await chat(b.url as string, "token-alpha", "to beta")).status).toBe(401);
    const listed = await platform.list();
    expect(listed.map((s) => s.id).sort()).toEqual(["agt_alpha", "agt_beta"]);
    expect(listed.every((s) => s.status === "running")).toBe(true);
    expect(JSON.stringify(listed)).not.toContain("token-");
  });

  it("restarts the runtime through the wrapper (its in-memory sessions are gone)", async () => {
    const sessions = async () => {
      const res = await fetch(`${a.url}/api/sessions`, { headers: { authorization: "Bearer token-alpha" } });
      return res.ok ? ((await res.json()) as { sessions: unknown[] }).sessions.length : -1;
    };
    expect(await sessions()).toBe(1);
    const pidBefore = (await platform.find({ id: "agt_alpha", name: "" }))?.metadata.pid;
    await platform.restart("agt_alpha");
    await wrapperReaches(a.url as string, adminPassword("agt_alpha", "token-alpha"));
    expect(await sessions()).toBe(0);
    // The wrapper stayed; only its runtime restarted.
    expect((await platform.find({ id: "agt_alpha", name: "" }))?.metadata.pid).toBe(pidBefore);
  });

  it("reports stats and logs of a running agent", async () => {
    const stats = await platform.stats("agt_alpha");
    expect(stats.cpuPercent).toEqual(expect.any(Number));
    expect(stats.cpuPercent).toBeGreaterThanOrEqual(0);
    expect(stats.memoryBytes).toBeGreaterThan(10 * 1024 * 1024);
    expect(stats.memoryLimitBytes).toBeNull();
    const logs = await platform.logs("agt_alpha", 50);
    expect(logs.some((l) => l.line.includes("fake runtime listening"))).toBe(true);
    await expect(platform.stats("agt_nobody")).rejects.toMatchObject({ reason: "not_found" });
  });

  it("stops an agent: process group gone, status stopped, probe unreachable; deploy brings it back", async () => {
    const pid = (await platform.find({ id: "agt_alpha", name: "" }))?.metadata.pid as number;
    await platform.stop("agt_alpha");
    expect(await isGroupAlive(pid)).toBe(false);
    expect(await platform.find({ id: "agt_alpha", name: "" })).toMatchObject({
      status: "stopped",
      metadata: { desired: "stopped", pid: null },
    });
    expect(await probeStatus(a.url as string)).toBe("unreachable");
    expect(await platform.stats("agt_alpha")).toEqual({
      cpuPercent: null,
      memoryBytes: null,
      memoryLimitBytes: null,
    });
    // Logs of a stopped agent come from its wrapper.log.
    expect((await platform.logs("agt_alpha", 5)).length).toBeGreaterThan(0);

    // Its ports are kept unless something took them meanwhile (then deploy reports the new URL).
    a = await platform.deploy("agt_alpha");
    await wrapperReaches(a.url as string, adminPassword("agt_alpha", "token-alpha"));
    expect((await chat(a.url as string, "token-alpha", "back")).status).toBe(200);
  });

  it("setEnv reaches the agent at the next deploy", async () => {
    await platform.setEnv("agt_alpha", envFor("agt_alpha", "token-alpha-2"));
    await platform.setImage("agt_alpha", "ghcr.io/openclaw/openclaw:2026.5.1");
    expect((await chat(a.url as string, "token-alpha", "old token still")).status).toBe(200);
    a = await platform.deploy("agt_alpha");
    expect(a.image).toBe("ghcr.io/openclaw/openclaw:2026.5.1");
    await wrapperReaches(a.url as string, adminPassword("agt_alpha", "token-alpha-2"));
    expect((await chat(a.url as string, "token-alpha-2", "new")).status).toBe(200);
    expect((await chat(a.url as string, "token-alpha", "old")).status).toBe(401);
  });

  it("restoreRunning brings back an agent whose process died, after a platform restart, on free ports", async () => {
    const killed = (await platform.find({ id: "agt_alpha", name: "" }))?.metadata.pid as number;
    const betaPid = (await platform.find({ id: "agt_beta", name: "" }))?.metadata.pid;
    expect(killed).toBeGreaterThan(1);
    signalGroup(killed, "SIGKILL");
    await expect.poll(() => isGroupAlive(killed), { message: "group gone", timeout: 40_000 }).toBe(false);
    expect((await platform.find({ id: "agt_alpha", name: "" }))?.status).toBe("crashed");
    // Something else takes the dead agent's port meanwhile, as any process may on a busy machine (an
    // outgoing connection's ephemeral port, say). When one already holds it, it may let go again before
    // the driver looks: then the driver may keep the port, and only the squatter's case is asserted.
    const squatter = createServer();
    const squatted = await new Promise<boolean>((resolve) => {
      squatter.once("error", () => resolve(false));
      squatter.listen(Number(new URL(a.url as string).port), "127.0.0.1", () => resolve(true));
    });

    // A new driver over the same directory stands for the restarted platform.
    const restarted = driver();
    try {
      expect(await restarted.restoreRunning()).toEqual(["agt_alpha"]);
    } finally {
      squatter.close();
    }
    // The restored agent is wherever the driver says: a port found taken at a start is replaced.
    const restored = (await restarted.find({ id: "agt_alpha", name: "" }))?.url as string;
    if (squatted) expect(restored).not.toBe(a.url);
    await wrapperReaches(restored, adminPassword("agt_alpha", "token-alpha-2"));
    expect(await probeStatus(restored)).toBe("running");
    expect((await chat(restored, "token-alpha-2", "restored")).status).toBe(200);
    // The agent that never went down was adopted, not restarted.
    expect((await restarted.find({ id: "agt_beta", name: "" }))?.metadata.pid).toBe(betaPid);
    // A stopped agent stays stopped.
    await restarted.stop("agt_beta");
    expect(await restarted.restoreRunning()).toEqual([]);
    expect((await restarted.find({ id: "agt_beta", name: "" }))?.status).toBe("stopped");
  });

  it("close stops the agents but keeps them meant to run; remove deletes the agent", async () => {
    const restarted = drivers[drivers.length - 1];
    const pid = (await restarted.find({ id: "agt_alpha", name: "" }))?.metadata.pid as number;
    await restarted.close();
    expect(await isGroupAlive(pid)).toBe(false);
    const after = driver();
    expect(await after.find({ id: "agt_alpha", name: "" })).toMatchObject({
      metadata: { desired: "running" },
    });

    await after.remove("agt_beta");
    expect(await after.find({ id: "agt_beta", name: "agent-beta" })).toBeNull();
    await expect(stat(join(dir, "agt_beta"))).rejects.toMatchObject({ code: "ENOENT" });
    await expect(after.deploy("agt_beta")).rejects.toMatchObject({ reason: "not_found" });
    await expect(after.deploy("../etc")).rejects.toMatchObject({ reason: "not_found" });
  });
});
