/**
 * The watchdog end to end on one backend process: real PostgreSQL, loopback fake agents (wrapper surface),
 * loopback fake bot API and webhook, a hosting-platform double, and an injected clock with manual timers,
 * so minutes of watchdog life run step by step. Times below are milliseconds on that clock since T0.
 */
import { ManualClock, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { scrapeMetrics } from "@svc/common/metrics/index";
import { type FakeUpstream, metricValue, sendJson, startFakeUpstream } from "@svc/common/testing";
import { agents, watchdogStates } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { probeRuntime } from "../runtime/probe";
import { createUser, testDatabase } from "../testing";
import { ManualTimers } from "../timers";
import { createWatchdogManager, type WatchdogConfig, type WatchdogManager } from "./manager";
import { refreshWatchdogGauges } from "./metrics";
import { createWatchdogNotifier } from "./notifier";
import { resetAfterOperatorAction } from "./store";
import { type FakeAgents, fakePlatform, memoryLogger, startFakeAgents } from "./testing/fixtures";

const database = testDatabase();
const { db } = database;
const KEY = "ef".repeat(32);
const BOT_TOKEN = "987654:watchdog-bot-token";
const T0 = new Date("2026-03-01T10:00:00.000Z");
const S = 1_000;
const MIN = 60_000;
const tokenOf = (agentId: string) => `gateway-token-${agentId}`;
/** What the platform derives from the key, agent id and token (the wrapper admin API takes it). */
const adminPasswordOf = (agentId: string) => wrapperAdminPassword(KEY, agentId, tokenOf(agentId));

const DEFAULTS: WatchdogConfig = {
  WATCHDOG_AUTO_REPAIR: true,
  WATCHDOG_INTERVAL_MS: 2 * MIN,
  WATCHDOG_DEGRADED_INTERVAL_MS: 5 * S,
  WATCHDOG_CRASH_WINDOW_MS: 5 * MIN,
  WATCHDOG_CRASH_THRESHOLD: 3,
  WATCHDOG_STARTUP_GRACE_MS: 30 * S,
  WATCHDOG_BOT_TOKEN: undefined,
  WATCHDOG_ADMIN_CHAT_ID: undefined,
  WATCHDOG_BOT_API_URL: "https://api.telegram.org",
  WATCHDOG_WEBHOOK_URL: undefined,
};

let bot: FakeUpstream;
let hook: FakeUpstream;
let clock: ManualClock;
let timers: ManualTimers;
let fake: FakeAgents;
let platform: ReturnType<typeof fakePlatform>;
let manager: WatchdogManager | undefined;
let log: ReturnType<typeof memoryLogger>;

beforeAll(async () => {
  bot = await startFakeUpstream((_req, res) => sendJson(res, 200, { ok: true, result: {} }));
  hook = await startFakeUpstream((_req, res) => sendJson(res, 200, { ok: true }));
  await createUser({ id: "usr_wd", email: "wd@example.com", name: "W" });
});

afterAll(async () => {
  await Promise.all([bot.close(), hook.close()]);
});

beforeEach(async () => {
  await db.delete(agents);
  clock = new ManualClock(T0);
  timers = new ManualTimers(clock);
  fake = await startFakeAgents(clock, T0, adminPasswordOf);
  platform = fakePlatform(clock, T0, fake);
  bot.requests.length = 0;
  hook.requests.length = 0;
  log = memoryLogger();
});

afterEach(async () => {
  await manager?.stop();
  manager = undefined;
  await fake.close();
});

async function addAgent(id: string, over: Partial<typeof agents.$inferInsert> = {}) {
  await db.insert(agents).values({
    id,
    userId: "usr_wd",
    name: `Agent ${id}`,
    url: await fake.urlOf(id),
    runtimeServiceId: `svc_${id}`,
    gatewayTokenEncrypted: sealGatewayToken(KEY, tokenOf(id)),
    status: "running",
    ...over,
  });
}

/** Starts the watchdog with the configuration's defaults (and `over`), notifications to the fake bot and webhook. */
async function startWatchdog(
  over: Partial<WatchdogConfig> = {},
  extra: Partial<Parameters<typeof createWatchdogManager>[0]> = {},
) {
  const config: WatchdogConfig = {
    ...DEFAULTS,
    WATCHDOG_BOT_TOKEN: BOT_TOKEN,
    WATCHDOG_ADMIN_CHAT_ID: "-1001",
    WATCHDOG_BOT_API_URL: bot.url,
    WATCHDOG_WEBHOOK_URL: `${hook.url}/watchdog`,
    ...over,
  };
  manager = createWatchdogManager({
    db,
    connectionString: process.env.DATABASE_URL as string,
    platform: platform.platform,
    config,
    logger: log.logger,
    dataEncryptionKey: KEY,
    clock,
    timers,
    probe: (url) => probeRuntime(url),
    ownerId: "backend-1",
    ...extra,
  });
  await manager.start();
  await timers.advance(0);
}

async function row(agentId: string) {
  const [r] = await db.select().from(watchdogStates).where(eq(watchdogStates.agentId, agentId));
  return r;
}

async function agentStatus(agentId: string) {
  const [r] = await db.select({ status: agents.status }).from(agents).where(eq(agents.id, agentId));
  return r?.status;
}

const since = (ms: number[]) => ms.map((m) => new Date(T0.getTime() + m));
const probeTimes = (agentId: string) => fake.probes(agentId).map((r) => r.at);

interface HookBody {
  text: string;
  event: string;
  agentId: string;
  state: string;
  at: string;
}
const hookBodies = (): HookBody[] => hook.requests.map((r) => JSON.parse(r.body.toString()));
/** Webhook notifications as `event@ms`, once `count` have arrived (they are sent beside the watchdog). */
async function notifications(count: number): Promise<string[]> {
  await expect
    .poll(() => hook.requests.length, { message: `${count} webhook notifications`, interval: 10 })
    .toBeGreaterThanOrEqual(count);
  return hookBodies()
    .map((b) => ({ event: b.event, at: new Date(b.at).getTime() - T0.getTime() }))
    .sort((a, b) => a.at - b.at || a.event.localeCompare(b.event))
    .map((b) => `${b.event}@${b.at}`);
}

describe("probing cadence", () => {
  it("probes a healthy agent every 2 minutes and records the result and its owner", async () => {
    await addAgent("agt_a");
    await startWatchdog();
    expect(manager?.watching()).toEqual(["agt_a"]);
    expect(probeTimes("agt_a")).toEqual([0]);
    await timers.advance(2 * MIN - 1);
    expect(probeTimes("agt_a")).toEqual([0]);
    await timers.advance(1);
    await timers.advance(2 * MIN);
    expect(probeTimes("agt_a")).toEqual([0, 2 * MIN, 4 * MIN]);
    expect(await row("agt_a")).toMatchObject({
      state: "healthy",
      lastStatus: "running",
      lastProbeAt: since([4 * MIN])[0],
      crashTimes: [],
      ownerId: "backend-1",
    });
    expect(await agentStatus("agt_a")).toBe("running");
    expect(hook.requests).toHaveLength(0);
  });

  it("a failing probe moves the agent to degraded (mirrored on agents.status), probed every 5 s, until it is up", async () => {
    await addAgent("agt_a");
    await startWatchdog({ WATCHDOG_AUTO_REPAIR: false });
    fake.setMode("agt_a", "down");
    await timers.advance(2 * MIN);
    expect(await row("agt_a")).toMatchObject({ state: "degraded", lastStatus: "unreachable" });
    expect(await agentStatus("agt_a")).toBe("degraded");
    await timers.advance(15 * S);
    expect(probeTimes("agt_a")).toEqual([0, 120_000, 125_000, 130_000, 135_000]);
    fake.setMode("agt_a", "running");
    await timers.advance(5 * S);
    expect(await row("agt_a")).toMatchObject({ state: "healthy", lastStatus: "running" });
    expect(await agentStatus("agt_a")).toBe("running");
    await timers.advance(2 * MIN);
    expect(probeTimes("agt_a")).toEqual([0, 120_000, 125_000, 130_000, 135_000, 140_000, 260_000]);
    expect(await notifications(1)).toEqual(["degraded@120000"]);
  });

  it("agents taken over together get their first probes 100 ms apart, then keep their own cadence", async () => {
    await addAgent("agt_a");
    await addAgent("agt_b");
    await startWatchdog();
    await timers.advance(2 * MIN + 100);
    const times = [probeTimes("agt_a"), probeTimes("agt_b")].sort((x, y) => x[0] - y[0]);
    expect(times).toEqual([
      [0, 120_000],
      [100, 120_100],
    ]);
  });

  it("a gateway the wrapper reports starting is neither a failure nor up", async () => {
    await addAgent("agt_a");
    await startWatchdog({ WATCHDOG_AUTO_REPAIR: false });
    fake.setMode("agt_a", "starting");
    await timers.advance(2 * MIN);
    // Up → starting is a crash (the gateway went away), but not a degradation.
    expect(await row("agt_a")).toMatchObject({
      state: "healthy",
      lastStatus: "starting",
      crashTimes: since([120_000]),
    });
  });
});

describe("crash counting", () => {
  /** One crash seen at the next regular probe, then recovery at the degraded probe 5 s later. */
  async function crashAndRecover(agentId: string) {
    fake.setMode(agentId, "crashed");
    await timers.advance(2 * MIN);
    fake.setMode(agentId, "running");
    await timers.advance(5 * S);
  }

  it("three crashes within 5 minutes: crash_loop, mirrored, notified, no restarts", async () => {
    await addAgent("agt_c");
    await startWatchdog({ WATCHDOG_AUTO_REPAIR: false });
    await crashAndRecover("agt_c"); // crash at 120 s, healthy at 125 s
    await crashAndRecover("agt_c"); // crash at 245 s, healthy at 250 s
    expect(await row("agt_c")).toMatchObject({ state: "healthy", crashTimes: since([120_000, 245_000]) });
    fake.setMode("agt_c", "crashed");
    await timers.advance(2 * MIN); // crash at 370 s: the window (70 s, 370 s] holds three
    expect(await row("agt_c")).toMatchObject({
      state: "crash_loop",
      lastStatus: "crashed",
      crashTimes: since([120_000, 245_000, 370_000]),
    });
    expect(await agentStatus("agt_c")).toBe("crash_loop");
    expect(await notifications(3)).toEqual(["degraded@120000", "degraded@245000", "crash_loop@370000"]);
    expect(hookBodies().find((b) => b.event === "crash_loop")).toMatchObject({
      agentId: "agt_c",
      state: "crash_loop",
      text: "[watchdog] Agent Agent agt_c (agt_c) is in a crash loop; automatic restarts stopped until an operator restarts it — 3 crashes within 300 s",
    });
    expect(platform.state.calls).toEqual([]);
  });

  it("three crashes spread over more than 5 minutes are not a crash loop", async () => {
    await addAgent("agt_c");
    await startWatchdog({ WATCHDOG_AUTO_REPAIR: false });
    await crashAndRecover("agt_c"); // crash at 120 s
    await timers.advance(2 * MIN); // 245 s: running
    await crashAndRecover("agt_c"); // crash at 365 s
    fake.setMode("agt_c", "crashed");
    await timers.advance(2 * MIN); // crash at 490 s: 120 s has left the window (190 s, 490 s]
    expect(await row("agt_c")).toMatchObject({ state: "degraded", crashTimes: since([365_000, 490_000]) });
    expect(await agentStatus("agt_c")).toBe("degraded");
  });

  it("a gateway the wrapper keeps restarting (crashed, starting, crashed…) reaches crash_loop within seconds", async () => {
    await addAgent("agt_c");
    await startWatchdog({ WATCHDOG_AUTO_REPAIR: false });
    fake.setMode("agt_c", "crashed");
    await timers.advance(2 * MIN); // 120 s crash 1, degraded: probed every 5 s
    fake.setMode("agt_c", "starting");
    await timers.advance(5 * S); // 125 s: on its way up, no crash
    fake.setMode("agt_c", "crashed");
    await timers.advance(5 * S); // 130 s crash 2
    fake.setMode("agt_c", "starting");
    await timers.advance(5 * S); // 135 s
    expect(await row("agt_c")).toMatchObject({ state: "degraded", crashTimes: since([120_000, 130_000]) });
    fake.setMode("agt_c", "crashed");
    await timers.advance(5 * S); // 140 s crash 3
    expect(await row("agt_c")).toMatchObject({
      state: "crash_loop",
      crashTimes: since([120_000, 130_000, 140_000]),
    });
  });
});

describe("startup grace", () => {
  it("after an operator action, failures within 30 s neither degrade nor count; after it they do", async () => {
    await addAgent("agt_g");
    await startWatchdog();
    fake.setMode("agt_g", "down");
    await timers.advance(2 * MIN); // 120 s: degraded, crash 1, next probe at 125 s
    expect(await agentStatus("agt_g")).toBe("degraded");
    await resetAfterOperatorAction(db, "agt_g", clock); // the operator restarted it at 120 s
    expect(await row("agt_g")).toMatchObject({
      state: "healthy",
      crashTimes: [],
      lastStatus: null,
      lastRepairAt: since([120_000])[0],
    });
    expect(await agentStatus("agt_g")).toBe("running");
    await timers.advance(5 * S); // 125 s: still down, in grace
    expect(probeTimes("agt_g")).toEqual([0, 120_000, 125_000]);
    expect(await row("agt_g")).toMatchObject({ state: "healthy", lastStatus: "unreachable", crashTimes: [] });
    expect(platform.state.calls).toEqual([]);
    await timers.advance(2 * MIN); // 245 s: grace over
    expect(await row("agt_g")).toMatchObject({
      state: "degraded",
      lastStatus: "unreachable",
      crashTimes: [],
    });
    expect(await notifications(2)).toEqual(["degraded@120000", "degraded@245000"]);
  });
});

describe("auto-repair", () => {
  it("kills the gateway through the wrapper, waits 5 s, restarts, waits 30 s, verifies: success", async () => {
    await addAgent("agt_r");
    await startWatchdog();
    fake.setMode("agt_r", "crashed");
    await timers.advance(2 * MIN); // 120 s: degraded
    await timers.advance(5 * S); // 125 s: still crashed → repair starts, gateway stopped through the wrapper
    expect(await row("agt_r")).toMatchObject({ state: "repairing" });
    expect(await agentStatus("agt_r")).toBe("degraded");
    const stops = fake.requests.filter((r) => r.path === "/api/gateway/stop");
    expect(stops).toEqual([
      {
        agentId: "agt_r",
        method: "POST",
        path: "/api/gateway/stop",
        authorization: `Bearer ${adminPasswordOf("agt_r")}`,
        at: 125_000,
      },
    ]);
    // The wrapper's admin password, not the gateway token the runtime holds.
    expect(adminPasswordOf("agt_r")).not.toBe(tokenOf("agt_r"));
    expect(fake.mode("agt_r")).toBe("stopped");
    expect(platform.state.calls).toEqual([{ op: "find", serviceId: "svc_agt_r", at: 125_000 }]);

    await timers.advance(5 * S - 1);
    expect(platform.state.calls.map((c) => c.op)).toEqual(["find"]);
    await timers.advance(1); // 130 s: restart
    expect(platform.state.calls).toEqual([
      { op: "find", serviceId: "svc_agt_r", at: 125_000 },
      { op: "restart", serviceId: "svc_agt_r", at: 130_000 },
    ]);
    expect(await row("agt_r")).toMatchObject({ state: "repairing", lastRepairAt: since([130_000])[0] });

    await timers.advance(30 * S - 1);
    expect(probeTimes("agt_r")).toEqual([0, 120_000, 125_000]); // no probe while repairing
    await timers.advance(1); // 160 s: verify
    expect(probeTimes("agt_r")).toEqual([0, 120_000, 125_000, 160_000]);
    expect(await row("agt_r")).toMatchObject({
      state: "healthy",
      lastStatus: "running",
      crashTimes: since([120_000]),
      ownerId: "backend-1",
    });
    expect(await agentStatus("agt_r")).toBe("running");
    expect(await notifications(3)).toEqual([
      "degraded@120000",
      "repair_started@125000",
      "repair_succeeded@160000",
    ]);

    // The bot got the same notifications, as sendMessage calls to the admin chat.
    await expect
      .poll(() => bot.requests.length, { message: "3 bot messages", interval: 10 })
      .toBeGreaterThanOrEqual(3);
    expect(bot.requests.every((r) => r.path === `/bot${BOT_TOKEN}/sendMessage`)).toBe(true);
    const texts = bot.requests.map((r) => JSON.parse(r.body.toString()) as { chat_id: string; text: string });
    expect(texts.every((t) => t.chat_id === "-1001")).toBe(true);
    expect(texts.map((t) => t.text).sort()).toEqual(
      [
        "[watchdog] Agent Agent agt_r (agt_r) is degraded — last probe: crashed",
        "[watchdog] Agent Agent agt_r (agt_r) repair started (kill gateway, restart, verify) — last probe: crashed",
        "[watchdog] Agent Agent agt_r (agt_r) repair succeeded; the agent is healthy again",
      ].sort(),
    );

    await timers.advance(2 * MIN); // back to the regular cadence
    expect(probeTimes("agt_r")).toEqual([0, 120_000, 125_000, 160_000, 280_000]);
    expect(platform.state.calls.map((c) => c.op)).toEqual(["find", "restart"]);
  });

  it("a repair that does not bring the agent back fails, counts a crash, and repeated failures end in crash_loop", async () => {
    await addAgent("agt_f");
    platform.state.afterRestart = "down";
    await startWatchdog();
    fake.setMode("agt_f", "down"); // the wrapper itself is gone: the gateway stop falls back to the platform
    await timers.advance(2 * MIN); // 120 s: degraded (crash 1: running → unreachable)
    await timers.advance(5 * S); // 125 s: repair 1
    await timers.advance(35 * S); // 130 s restart, 160 s verify fails (crash 2)
    expect(await row("agt_f")).toMatchObject({ state: "degraded", crashTimes: since([120_000, 160_000]) });
    await timers.advance(5 * S); // 165 s: still down → repair 2
    await timers.advance(35 * S); // 170 s restart, 200 s verify fails (crash 3) → crash_loop
    expect(platform.state.calls).toEqual([
      { op: "find", serviceId: "svc_agt_f", at: 125_000 },
      { op: "stop", serviceId: "svc_agt_f", at: 125_000 },
      { op: "restart", serviceId: "svc_agt_f", at: 130_000 },
      { op: "find", serviceId: "svc_agt_f", at: 165_000 },
      { op: "stop", serviceId: "svc_agt_f", at: 165_000 },
      { op: "restart", serviceId: "svc_agt_f", at: 170_000 },
    ]);
    expect(await row("agt_f")).toMatchObject({
      state: "crash_loop",
      lastStatus: "unreachable",
      crashTimes: since([120_000, 160_000, 200_000]),
    });
    expect(await agentStatus("agt_f")).toBe("crash_loop");
    expect(await notifications(6)).toEqual([
      "degraded@120000",
      "repair_started@125000",
      "repair_failed@160000",
      "repair_started@165000",
      "crash_loop@200000",
      "repair_failed@200000",
    ]);
    expect(hookBodies().find((b) => b.event === "repair_failed")?.text).toBe(
      "[watchdog] Agent Agent agt_f (agt_f) repair failed — still unreachable after the restart",
    );
    // Restarts stop: ten more minutes, probes go on at the regular interval, the platform hears nothing.
    await timers.advance(10 * MIN);
    expect(platform.state.calls).toHaveLength(6);
    expect(probeTimes("agt_f").filter((t) => t > 200_000)).toEqual([
      320_000, 440_000, 560_000, 680_000, 800_000,
    ]);
  });

  it("a restart the platform refuses is a failed repair; the watchdog carries on probing", async () => {
    await addAgent("agt_x");
    platform.state.restartError = new Error("platform said no");
    await startWatchdog();
    fake.setMode("agt_x", "crashed");
    await timers.advance(2 * MIN + 10 * S); // 120 s degraded, 125 s repair (wrapper stop), 130 s restart throws
    expect(await row("agt_x")).toMatchObject({ state: "degraded", crashTimes: since([120_000, 130_000]) });
    expect(platform.state.calls.map((c) => `${c.op}@${c.at}`)).toEqual(["find@125000", "restart@130000"]);
    expect(await notifications(3)).toEqual([
      "degraded@120000",
      "repair_started@125000",
      "repair_failed@130000",
    ]);
    expect(hookBodies().find((b) => b.event === "repair_failed")?.text).toContain(
      "restart failed: platform said no",
    );
    await timers.advance(5 * S);
    expect(probeTimes("agt_x").at(-1)).toBe(135_000);
  });

  it("an owner stop or an operator action during a repair ends it before the restart", async () => {
    await addAgent("agt_o");
    await addAgent("agt_q");
    await startWatchdog();
    await timers.advance(100); // the second agent's first probe (100 ms after the first's)
    fake.setMode("agt_o", "crashed");
    fake.setMode("agt_q", "crashed");
    await timers.advance(2 * MIN + 5 * S); // both degraded, then both repairing (gateways stopped)
    expect((await row("agt_o")).state).toBe("repairing");
    expect((await row("agt_q")).state).toBe("repairing");
    await db.update(agents).set({ status: "stopped" }).where(eq(agents.id, "agt_o"));
    await resetAfterOperatorAction(db, "agt_q", clock);
    await timers.advance(40 * S);
    expect(platform.state.calls.filter((c) => c.op === "restart")).toEqual([]);
    expect(await row("agt_o")).toMatchObject({ state: "stopped" });
    expect(await agentStatus("agt_o")).toBe("stopped");
    expect(await row("agt_q")).toMatchObject({ state: "healthy", crashTimes: [] });
  });

  it("another agent's wrapper on the agent's address gets no password: the service is stopped instead", async () => {
    // agt_s's wrapper is gone and agt_t's (crashed) holds its address: the watchdog of agt_s repairs it.
    await addAgent("agt_t", { status: "stopped" });
    await addAgent("agt_s", { url: await fake.urlOf("agt_t") });
    await startWatchdog();
    fake.setMode("agt_t", "crashed");
    await timers.advance(2 * MIN + 5 * S);
    const stops = platform.state.calls.filter((c) => c.op === "stop");
    expect(stops.length).toBeGreaterThan(0);
    expect(stops.every((c) => c.serviceId === "svc_agt_s")).toBe(true);
    // What agt_t's wrapper got besides probes: one identity challenge per repair, never a credential.
    const asked = fake.requests.filter((r) => !["/api/status", "/healthz", "/readyz"].includes(r.path));
    expect(asked.map((r) => [r.agentId, r.method, r.path, r.authorization])).toEqual(
      stops.map(() => ["agt_t", "GET", "/api/identity", undefined]),
    );
    expect(fake.mode("agt_t")).toBe("crashed");
  });

  it("WATCHDOG_AUTO_REPAIR=false: a degraded agent is watched every 5 s but never repaired", async () => {
    await addAgent("agt_n");
    await startWatchdog({ WATCHDOG_AUTO_REPAIR: false });
    fake.setMode("agt_n", "down");
    await timers.advance(3 * MIN);
    expect(probeTimes("agt_n")).toHaveLength(1 + 1 + 12); // 0, 120 s, then every 5 s up to 180 s
    expect(await row("agt_n")).toMatchObject({ state: "degraded" });
    expect(platform.state.calls).toEqual([]);
    expect(fake.requests.filter((r) => r.path === "/api/gateway/stop")).toEqual([]);
    expect(await notifications(1)).toEqual(["degraded@120000"]);
  });
});

describe("crash_loop and operator reset", () => {
  it("crash_loop holds while the agent is up again; only the operator reset leaves it", async () => {
    await addAgent("agt_l");
    await startWatchdog({ WATCHDOG_CRASH_THRESHOLD: 1 });
    fake.setMode("agt_l", "crashed");
    await timers.advance(2 * MIN);
    expect(await row("agt_l")).toMatchObject({ state: "crash_loop" });
    fake.setMode("agt_l", "running");
    await timers.advance(10 * MIN);
    expect(await row("agt_l")).toMatchObject({ state: "crash_loop", lastStatus: "running" });
    expect(await agentStatus("agt_l")).toBe("crash_loop");
    expect(platform.state.calls).toEqual([]);

    const after = await resetAfterOperatorAction(db, "agt_l", clock);
    expect(after).toMatchObject({ state: "healthy", crashTimes: [] });
    expect(await agentStatus("agt_l")).toBe("running");
    await timers.advance(2 * MIN);
    expect(await row("agt_l")).toMatchObject({ state: "healthy", lastStatus: "running", crashTimes: [] });
  });

  it("resetAfterOperatorAction on an unknown agent returns null", async () => {
    expect(await resetAfterOperatorAction(db, "agt_missing", clock)).toBeNull();
  });
});

describe("injected clock", () => {
  it("stamps the watchdog row and the mirrored agent status with the watchdog's clock", async () => {
    await addAgent("agt_clk");
    await startWatchdog({ WATCHDOG_CRASH_THRESHOLD: 1 });
    expect((await row("agt_clk")).updatedAt).toEqual(T0);
    fake.setMode("agt_clk", "crashed");
    await timers.advance(2 * MIN);
    const state = await row("agt_clk");
    expect(state.state).toBe("crash_loop");
    const [agent] = await db.select().from(agents).where(eq(agents.id, "agt_clk"));
    expect(agent.status).toBe("crash_loop");
    // Times of the manual clock (T0 .. T0 + 2 min), not of the machine.
    for (const at of [state.updatedAt, agent.updatedAt]) {
      expect(at.getTime()).toBeGreaterThan(T0.getTime());
      expect(at.getTime()).toBeLessThanOrEqual(clock.now().getTime());
    }
  });
});

describe("owner stop", () => {
  it("an agent its owner stopped is stopped for the watchdog: not probed, not repaired, status left alone", async () => {
    await addAgent("agt_s");
    await startWatchdog();
    await db.update(agents).set({ status: "stopped" }).where(eq(agents.id, "agt_s"));
    fake.setMode("agt_s", "down");
    await timers.advance(2 * MIN);
    expect(await row("agt_s")).toMatchObject({ state: "stopped" });
    await timers.advance(20 * MIN);
    expect(probeTimes("agt_s")).toEqual([0]);
    expect(platform.state.calls).toEqual([]);
    expect(await agentStatus("agt_s")).toBe("stopped");
    expect(hook.requests).toHaveLength(0);

    // The owner starts it again: watched again, with a startup grace.
    await db.update(agents).set({ status: "running" }).where(eq(agents.id, "agt_s"));
    await timers.advance(2 * MIN); // 22 min + 2 min: the next regular tick sees it running
    expect(probeTimes("agt_s")).toEqual([0, 24 * MIN]);
    expect(await row("agt_s")).toMatchObject({ state: "healthy", lastStatus: "unreachable" });
  });
});

describe("ownership bookkeeping", () => {
  it("a repair cut short by a dead process resumes as degraded under the new owner", async () => {
    await addAgent("agt_d");
    await db.insert(watchdogStates).values({ agentId: "agt_d", state: "repairing", ownerId: "backend-dead" });
    await db.update(agents).set({ status: "degraded" }).where(eq(agents.id, "agt_d"));
    await startWatchdog();
    expect(await row("agt_d")).toMatchObject({
      state: "healthy",
      lastStatus: "running",
      ownerId: "backend-1",
    });
    expect(await agentStatus("agt_d")).toBe("running");
  });

  it("agents not deployed are not watched; a deleted agent is let go and its lock freed", async () => {
    await addAgent("agt_k");
    await addAgent("agt_p", { status: "provisioning" });
    await addAgent("agt_u", { url: null });
    await startWatchdog();
    expect(manager?.watching()).toEqual(["agt_k"]);
    const locks = sql`select count(*)::int as n from pg_locks where locktype = 'advisory' and classid = 1464094535 and granted`;
    expect((await db.execute<{ n: number }>(locks)).rows[0].n).toBe(1);
    await db.delete(agents).where(eq(agents.id, "agt_k"));
    await manager?.refresh();
    expect(manager?.watching()).toEqual([]);
    expect((await db.execute<{ n: number }>(locks)).rows[0].n).toBe(0);
  });
});

describe("notifications never stop the watchdog", () => {
  it("a hanging bot API and a failing webhook: warnings without the token, the repair goes on", async () => {
    const hanging = await startFakeUpstream(() => undefined);
    const failing = await startFakeUpstream((_req, res) => sendJson(res, 500, { error: "boom" }));
    try {
      await addAgent("agt_h");
      const notifier = createWatchdogNotifier({
        botToken: BOT_TOKEN,
        adminChatId: "-1001",
        botApiUrl: hanging.url,
        webhookUrl: failing.url,
        timeoutMs: 1_000,
        logger: log.logger,
      });
      await startWatchdog({}, { notifier });
      fake.setMode("agt_h", "crashed");
      await timers.advance(2 * MIN + 40 * S); // degraded, repair, restart, verify
      expect(await row("agt_h")).toMatchObject({ state: "healthy", lastStatus: "running" });
      expect(platform.state.calls.map((c) => c.op)).toEqual(["find", "restart"]);
      const count = (msg: string) => log.lines.filter((l) => l.msg === msg).length;
      await expect
        .poll(
          () => count("watchdog notification failed") >= 3 && count("watchdog notification refused") >= 3,
          {
            message: "three timed-out bot notifications and three refused webhook notifications",
            interval: 10,
          },
        )
        .toBe(true);
      const warnings = log.lines.filter(
        (l) => l.level === 40 && String(l.msg).startsWith("watchdog notification"),
      );
      expect(
        warnings.filter((w) => w.channel === "bot").every((w) => w.reason === "timed out after 1000 ms"),
      ).toBe(true);
      expect(warnings.filter((w) => w.channel === "webhook").every((w) => w.httpStatus === 500)).toBe(true);
      expect(log.raw.join("")).not.toContain(BOT_TOKEN);
      expect(failing.requests).toHaveLength(3);
    } finally {
      await Promise.all([hanging.close(), failing.close()]);
    }
  });
});

describe("watchdog metrics", () => {
  const scrape = async () =>
    (await scrapeMetrics(undefined, { refresh: () => refreshWatchdogGauges(db) })).body;

  it("agents by state, repairs by outcome and crash loops move with the state machine", async () => {
    await addAgent("agt_m1");
    await addAgent("agt_m2");
    platform.state.afterRestart = "down";
    const before = await scrape();
    await startWatchdog();
    fake.setMode("agt_m1", "down");
    await timers.advance(2 * MIN); // degraded
    await timers.advance(5 * S); // repair 1
    await timers.advance(35 * S); // restart, verify fails
    await timers.advance(5 * S); // repair 2
    await timers.advance(35 * S); // restart, verify fails: crash_loop
    expect(await row("agt_m1")).toMatchObject({ state: "crash_loop" });
    const after = await scrape();
    const moved = (name: string, labels: Record<string, string> = {}) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(metricValue(after, "watchdog_agents", { state: "crash_loop" })).toBe(1);
    expect(metricValue(after, "watchdog_agents", { state: "healthy" })).toBe(1);
    expect(metricValue(after, "watchdog_agents", { state: "repairing" })).toBe(0);
    expect(moved("watchdog_repairs_total", { outcome: "started" })).toBe(2);
    expect(moved("watchdog_repairs_total", { outcome: "failed" })).toBe(2);
    expect(moved("watchdog_repairs_total", { outcome: "succeeded" })).toBe(0);
    expect(moved("watchdog_crash_loops_total")).toBe(1);
  });
});
