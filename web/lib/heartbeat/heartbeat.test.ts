/**
 * `GET/PUT/DELETE /api/heartbeat?agentId=` against a loopback runtime gateway (the cron job named
 * `heartbeat`) and the `heartbeat_settings` fallback table.
 */
import { freePort } from "@svc/common";
import { startFakeAgentRuntime } from "@svc/common/testing";
import { heartbeatSettings } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE, GET, PUT } from "@/app/api/heartbeat/route";
import { deployTestAgent, TEST_DATA_ENCRYPTION_KEY } from "../health/testing/agents";
import { call, signedInUser, type TestRequest, useWebTestContext, webContext } from "../infra/testing";
import { frequencyToMs, msToFrequency } from "./inputs";

const gateway = await startFakeAgentRuntime({ token: "gateway-token-0123456789abcdef" });
const refusedUrl = `http://127.0.0.1:${await freePort()}`;
useWebTestContext({ DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY });
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.apiFailure = null;
  gateway.cron.clear();
});

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
const path = (agentId?: string) =>
  agentId === undefined ? "/api/heartbeat" : `/api/heartbeat?agentId=${agentId}`;
const get = (jar: Jar | undefined, agentId?: string) => call(GET, { path: path(agentId), jar });
const put = (
  jar: Jar | undefined,
  agentId: string | undefined,
  json: unknown,
  extra: Partial<TestRequest> = {},
) => call(PUT, { method: "PUT", path: path(agentId), jar, json, ...extra });
const del = (jar: Jar | undefined, agentId?: string) =>
  call(DELETE, { method: "DELETE", path: path(agentId), jar });

async function rowOf(agentId: string) {
  const [row] = await webContext()
    .db.select()
    .from(heartbeatSettings)
    .where(eq(heartbeatSettings.agentId, agentId));
  return row ? { enabled: row.enabled, frequency: row.frequency } : null;
}

/** A signed-in user whose agent's wrapper URL is the fake gateway (or `url`). */
async function userWithAgent(url: string | null = gateway.url) {
  const signedIn = await signedInUser();
  const agent = await deployTestAgent(signedIn.user.id, { url, token: gateway.token, fake: gateway });
  return { ...signedIn, agent };
}

describe("heartbeat through the gateway", () => {
  it("reads no heartbeat job as disabled", async () => {
    const { jar, agent } = await userWithAgent();
    const res = await get(jar, agent.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ source: "gateway", enabled: false, frequency: null, job: null });
  });

  it("PUT writes the `heartbeat` cron job, mirrors it to the database, and GET reads it back", async () => {
    const { jar, agent } = await userWithAgent();
    const res = await put(jar, agent.id, { enabled: true, frequency: "15m" });
    expect(res.status).toBe(200);
    const job = {
      id: expect.stringMatching(/^cron_\d+$/),
      name: "heartbeat",
      enabled: true,
      schedule: { kind: "every", everyMs: 900_000 },
      lastRunAt: null,
      nextRunAt: null,
    };
    expect(await res.json()).toEqual({ source: "gateway", enabled: true, frequency: "15m", job });
    const sent = gateway.requests.at(-1);
    expect(`${sent?.method} ${sent?.path}`).toBe("PUT /api/cron/heartbeat");
    expect(JSON.parse(sent?.body.toString() ?? "")).toEqual({
      enabled: true,
      schedule: { kind: "every", everyMs: 900_000 },
    });
    expect(await rowOf(agent.id)).toEqual({ enabled: true, frequency: "15m" });

    expect(await (await get(jar, agent.id)).json()).toEqual({
      source: "gateway",
      enabled: true,
      frequency: "15m",
      job,
    });

    // 60m is 1h; a disabled heartbeat keeps its job.
    expect(await (await put(jar, agent.id, { enabled: false, frequency: "60m" })).json()).toMatchObject({
      source: "gateway",
      enabled: false,
      frequency: "1h",
      job: { enabled: false, schedule: { everyMs: 3_600_000 } },
    });
    expect(gateway.cron.get("heartbeat")?.enabled).toBe(false);
  });

  it("DELETE removes the job and the row; a second DELETE finds nothing", async () => {
    const { jar, agent } = await userWithAgent();
    await put(jar, agent.id, { enabled: true, frequency: "30m" });
    const res = await del(jar, agent.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, source: "gateway", deleted: true });
    expect(gateway.cron.has("heartbeat")).toBe(false);
    expect(await rowOf(agent.id)).toBeNull();
    expect(await (await del(jar, agent.id)).json()).toEqual({ ok: true, source: "gateway", deleted: false });
  });

  it("leaves other cron jobs alone", async () => {
    const { jar, agent } = await userWithAgent();
    gateway.cron.set("report", {
      id: "cron_r",
      name: "report",
      enabled: true,
      schedule: { kind: "every", everyMs: 86_400_000 },
      lastRunAt: null,
      nextRunAt: null,
    });
    expect((await (await get(jar, agent.id)).json()).job).toBeNull();
    await del(jar, agent.id);
    expect(gateway.cron.has("report")).toBe(true);
  });
});

describe("heartbeat database fallback", () => {
  it("an unreachable gateway: GET the table's defaults, PUT to the row, GET it, DELETE it", async () => {
    const { jar, agent } = await userWithAgent(refusedUrl);
    expect(await (await get(jar, agent.id)).json()).toEqual({
      source: "db",
      agentId: agent.id,
      enabled: true,
      frequency: "30m",
    });

    const res = await put(jar, agent.id, { enabled: false, frequency: "2h" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ source: "db", agentId: agent.id, enabled: false, frequency: "2h" });
    expect(await rowOf(agent.id)).toEqual({ enabled: false, frequency: "2h" });
    expect(await (await get(jar, agent.id)).json()).toEqual({
      source: "db",
      agentId: agent.id,
      enabled: false,
      frequency: "2h",
    });

    expect(await (await del(jar, agent.id)).json()).toEqual({ ok: true, source: "db", deleted: true });
    expect(await rowOf(agent.id)).toBeNull();
    expect(await (await del(jar, agent.id)).json()).toEqual({ ok: true, source: "db", deleted: false });
  });

  it("a gateway that fails or refuses the token falls back too", async () => {
    const { jar, agent } = await userWithAgent();
    gateway.apiFailure = 500;
    expect(await (await put(jar, agent.id, { enabled: true, frequency: "45m" })).json()).toEqual({
      source: "db",
      agentId: agent.id,
      enabled: true,
      frequency: "45m",
    });
    expect(gateway.cron.has("heartbeat")).toBe(false);

    gateway.apiFailure = null;
    const signedIn = await signedInUser();
    const wrongToken = await deployTestAgent(signedIn.user.id, {
      url: gateway.url,
      token: "wrong-token",
      fake: gateway,
    });
    expect((await (await get(signedIn.jar, wrongToken.id)).json()).source).toBe("db");
  });

  it("an agent without a runtime instance uses the database", async () => {
    const { jar, agent } = await userWithAgent(null);
    expect((await (await put(jar, agent.id, { enabled: true, frequency: "5m" })).json()).source).toBe("db");
    expect(await rowOf(agent.id)).toEqual({ enabled: true, frequency: "5m" });
  });
});

describe("heartbeat access and validation", () => {
  it("401 without a session", async () => {
    const { agent } = await userWithAgent();
    for (const res of [
      await get(undefined, agent.id),
      await put(undefined, agent.id, { enabled: true, frequency: "1h" }),
      await del(undefined, agent.id),
    ]) {
      expect(res.status).toBe(401);
    }
    expect(await rowOf(agent.id)).toBeNull();
  });

  it("another user's agent and an unknown id are 404, and nothing changes", async () => {
    const owner = await userWithAgent();
    await put(owner.jar, owner.agent.id, { enabled: true, frequency: "30m" });
    const other = await signedInUser();
    for (const res of [
      await get(other.jar, owner.agent.id),
      await put(other.jar, owner.agent.id, { enabled: false, frequency: "1h" }),
      await del(other.jar, owner.agent.id),
      await get(other.jar, "agt_unknown"),
    ]) {
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "agent not found", code: "agent_not_found" });
    }
    expect(gateway.cron.get("heartbeat")?.enabled).toBe(true);
    expect(await rowOf(owner.agent.id)).toEqual({ enabled: true, frequency: "30m" });
  });

  it("400 without agentId", async () => {
    const { jar } = await userWithAgent();
    const res = await get(jar);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: "agentId is required", code: "invalid_request" });
  });

  it("400 for bad bodies, with nothing written", async () => {
    const { jar, agent } = await userWithAgent();
    const cases: [unknown, string][] = [
      [
        { enabled: true, frequency: "10x" },
        "Frequency must be minutes or hours like 15m, 30m or 1h (1m to 24h)",
      ],
      [
        { enabled: true, frequency: "0m" },
        "Frequency must be minutes or hours like 15m, 30m or 1h (1m to 24h)",
      ],
      [
        { enabled: true, frequency: "25h" },
        "Frequency must be minutes or hours like 15m, 30m or 1h (1m to 24h)",
      ],
      [{ enabled: true }, "Frequency is required"],
      [{ frequency: "30m" }, "Enabled is required"],
      [{ enabled: "yes", frequency: "30m" }, "Enabled must be true or false"],
      [{ enabled: true, frequency: "30m", message: "hi" }, "unknown field: message"],
    ];
    for (const [json, error] of cases) {
      const res = await put(jar, agent.id, json);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toContain(error);
    }
    const badJson = await put(jar, agent.id, undefined, {
      body: "{oops",
      headers: { "content-type": "application/json" },
    });
    expect(badJson.status).toBe(400);
    expect(gateway.cron.has("heartbeat")).toBe(false);
    expect(await rowOf(agent.id)).toBeNull();
  });

  it("frequencies map to milliseconds and back", () => {
    expect(frequencyToMs("15m")).toBe(900_000);
    expect(frequencyToMs("1h")).toBe(3_600_000);
    expect(frequencyToMs("24h")).toBe(86_400_000);
    expect(frequencyToMs("1441m")).toBeNull();
    expect(frequencyToMs("1.5h")).toBeNull();
    expect(msToFrequency(5_400_000)).toBe("90m");
    expect(msToFrequency(90_000)).toBeNull();
    expect(msToFrequency(null)).toBeNull();
  });
});
