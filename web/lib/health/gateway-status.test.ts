/** `GET /api/gateway/status` against a loopback runtime gateway reached as the agent's wrapper URL. */
import { freePort } from "@svc/common";
import { startFakeAgentRuntime } from "@svc/common/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET } from "@/app/api/gateway/status/route";
import { call, signedInUser, useWebTestContext } from "../infra/testing";
import type { RuntimeCronJob, RuntimeSession } from "../runtime/gateway-client";
import { deployTestAgent, TEST_DATA_ENCRYPTION_KEY } from "./testing/agents";

const gateway = await startFakeAgentRuntime({ token: "gateway-token-0123456789abcdef" });
const refusedUrl = `http://127.0.0.1:${await freePort()}`;
useWebTestContext({ DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY });
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.healthStatus = 200;
  gateway.apiFailure = null;
  gateway.sessions = [];
  gateway.cron.clear();
});

const status = (jar?: Awaited<ReturnType<typeof signedInUser>>["jar"]) =>
  call(GET, { path: "/api/gateway/status", jar });

const EMPTY = { sessions: { total: 0, active: 0, list: [] }, cron: { total: 0, enabled: 0, jobs: [] } };

function session(i: number, status: string): RuntimeSession {
  return {
    key: `s${i}`,
    status,
    messageCount: i,
    lastActivityAt: new Date(Date.UTC(2026, 10, 21, 9, i)).toISOString(),
  };
}
function job(i: number, enabled: boolean): RuntimeCronJob {
  return {
    id: `cron_${i}`,
    name: `job-${i}`,
    enabled,
    schedule: { kind: "every", everyMs: 60_000 * i },
    lastRunAt: i === 1 ? "2026-11-21T09:00:00.000Z" : null,
    nextRunAt: i === 1 ? "2026-11-21T09:01:00.000Z" : null,
  };
}

describe("GET /api/gateway/status", () => {
  it("401 without a session", async () => {
    const res = await status();
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
  });

  it("without an agent: 200 unreachable with `no agent`", async () => {
    const { jar } = await signedInUser();
    const res = await status(jar);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      health: "unreachable",
      healthDetail: { ok: false, error: "no agent" },
      ...EMPTY,
    });
  });

  it("maps health, sessions and cron jobs of the newest agent, up to 10 each", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, {
      url: refusedUrl,
      token: gateway.token,
      createdAt: new Date("2026-01-01"),
    });
    await deployTestAgent(user.id, {
      url: gateway.url,
      fake: gateway,
      token: gateway.token,
      createdAt: new Date("2026-06-01"),
    });
    gateway.sessions = Array.from({ length: 12 }, (_, i) => session(i, i % 3 === 0 ? "active" : "idle"));
    for (let i = 1; i <= 11; i++) gateway.cron.set(`job-${i}`, job(i, i % 2 === 1));

    const res = await status(jar);
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body)).toEqual(["health", "healthDetail", "sessions", "cron"]);
    expect(body.health).toBe("healthy");
    expect(body.healthDetail).toEqual({ ok: true, status: 200 });

    expect(body.sessions.total).toBe(12);
    expect(body.sessions.active).toBe(4);
    expect(body.sessions.list).toHaveLength(10);
    // Most recently active first.
    expect(body.sessions.list.map((s: { sessionKey: string }) => s.sessionKey)).toEqual([
      "s11",
      "s10",
      "s9",
      "s8",
      "s7",
      "s6",
      "s5",
      "s4",
      "s3",
      "s2",
    ]);
    expect(body.sessions.list[2]).toEqual({
      sessionKey: "s9",
      status: "active",
      messageCount: 9,
      lastActivity: "2026-11-21T09:09:00.000Z",
    });

    expect(body.cron.total).toBe(11);
    expect(body.cron.enabled).toBe(6);
    expect(body.cron.jobs).toHaveLength(10);
    expect(body.cron.jobs[0]).toEqual({
      id: "cron_1",
      name: "job-1",
      enabled: true,
      schedule: { kind: "every", everyMs: 60_000 },
      lastRun: "2026-11-21T09:00:00.000Z",
      nextRun: "2026-11-21T09:01:00.000Z",
    });
    const calls = gateway.requests
      .filter((r) => !r.path.startsWith("/api/identity"))
      .slice(-3)
      .map((r) => `${r.method} ${r.path}`)
      .sort();
    expect(calls).toEqual(["GET /api/cron", "GET /api/sessions", "GET /healthz"]);
  });

  it("another user's agent is not seen", async () => {
    const owner = await signedInUser();
    await deployTestAgent(owner.user.id, { url: gateway.url, token: gateway.token, fake: gateway });
    const other = await signedInUser();
    expect((await (await status(other.jar)).json()).healthDetail).toEqual({ ok: false, error: "no agent" });
  });

  it("an unreachable runtime is labelled, with empty lists", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: refusedUrl, token: gateway.token });
    expect(await (await status(jar)).json()).toEqual({
      health: "unreachable",
      healthDetail: { ok: false, error: "connection refused" },
      ...EMPTY,
    });
  });

  it("a failing /healthz is unreachable with its status; the lists still show", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: gateway.url, token: gateway.token, fake: gateway });
    gateway.healthStatus = 503;
    gateway.sessions = [session(1, "active")];
    const body = await (await status(jar)).json();
    expect(body.health).toBe("unreachable");
    expect(body.healthDetail).toEqual({ ok: false, status: 503 });
    expect(body.sessions.total).toBe(1);
  });

  it("a refused token or failing lists leave health in place and the lists empty", async () => {
    const { user, jar } = await signedInUser();
    await deployTestAgent(user.id, { url: gateway.url, token: "not-the-gateway-token", fake: gateway });
    gateway.sessions = [session(1, "active")];
    expect(await (await status(jar)).json()).toEqual({
      health: "healthy",
      healthDetail: { ok: true, status: 200 },
      ...EMPTY,
    });
  });

  it("an agent without a runtime instance or a gateway token", async () => {
    const first = await signedInUser();
    await deployTestAgent(first.user.id, { url: null, token: gateway.token });
    expect((await (await status(first.jar)).json()).healthDetail).toEqual({
      ok: false,
      error: "no runtime instance",
    });

    const second = await signedInUser();
    await deployTestAgent(second.user.id, { url: gateway.url, token: null });
    gateway.sessions = [session(1, "active")];
    const body = await (await status(second.jar)).json();
    expect(body.health).toBe("healthy");
    expect(body.sessions).toEqual(EMPTY.sessions);
  });
});
