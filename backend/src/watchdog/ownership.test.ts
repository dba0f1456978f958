/**
 * One watcher per agent across backend processes: managers with their own pools and lock sessions over one
 * database, on one manual schedule. Exactly one probes each agent; when one stops or dies (its timers gone,
 * its database session terminated), another takes its agents over on its next refresh.
 */
import { createLogger, ManualClock, sealGatewayToken, wrapperAdminPassword } from "@svc/common";
import { connectDatabase, type DatabaseHandle } from "@svc/db";
import { agents, watchdogStates } from "@svc/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import { probeRuntime } from "../runtime/probe";
import { createUser, testDatabase } from "../testing";
import { type ManualTimerScope, ManualTimers } from "../timers";
import { createWatchdogManager, type WatchdogConfig, type WatchdogManager } from "./manager";
import { fakePlatform, startFakeAgents } from "./testing/fixtures";

const url = process.env.DATABASE_URL as string;
const test = testDatabase();
const KEY = "ab".repeat(32);
const T0 = new Date("2026-03-01T10:00:00.000Z");
const MIN = 60_000;
const clock = new ManualClock(T0);
const timers = new ManualTimers(clock);
const tokenOf = (agentId: string) => `token-${agentId}`;
/** What the platform derives from the key, agent id and token (the wrapper admin API takes it). */
const adminPasswordOf = (agentId: string) => wrapperAdminPassword(KEY, agentId, tokenOf(agentId));
const AGENTS = ["agt_o1", "agt_o2", "agt_o3", "agt_o4", "agt_o5", "agt_o6"];
const CONFIG: WatchdogConfig = {
  WATCHDOG_AUTO_REPAIR: true,
  WATCHDOG_INTERVAL_MS: 2 * MIN,
  WATCHDOG_DEGRADED_INTERVAL_MS: 5_000,
  WATCHDOG_CRASH_WINDOW_MS: 5 * MIN,
  WATCHDOG_CRASH_THRESHOLD: 3,
  WATCHDOG_STARTUP_GRACE_MS: 30_000,
  WATCHDOG_BOT_TOKEN: undefined,
  WATCHDOG_ADMIN_CHAT_ID: undefined,
  WATCHDOG_BOT_API_URL: "https://api.telegram.org",
  WATCHDOG_WEBHOOK_URL: undefined,
};

const fake = await startFakeAgents(clock, T0, adminPasswordOf);
const { platform } = fakePlatform(clock, T0, fake);
/** Who probed which agent, and when (on the manual clock). */
const probes: Array<{ by: string; agentId: string; at: number }> = [];

interface Process {
  name: string;
  database: DatabaseHandle;
  scope: ManualTimerScope;
  manager: WatchdogManager;
}
const processes: Process[] = [];

/** A "backend process": its own pool, lock session, and timers. */
function backendProcess(name: string): Process {
  const database = connectDatabase(url, { max: 3 });
  const scope = timers.scope();
  const manager = createWatchdogManager({
    db: database.db,
    connectionString: url,
    platform,
    config: CONFIG,
    logger: createLogger("watchdog-test", "silent"),
    dataEncryptionKey: KEY,
    clock,
    timers: scope,
    probe: (agentUrl) => {
      const agentId = fake.agentAt(agentUrl);
      probes.push({ by: name, agentId, at: clock.now().getTime() - T0.getTime() });
      return probeRuntime(agentUrl);
    },
    ownerId: name,
    firstProbeSpacingMs: 0,
  });
  const process = { name, database, scope, manager };
  processes.push(process);
  return process;
}

async function owners(): Promise<Record<string, string | null>> {
  const rows = await test.db.select().from(watchdogStates);
  return Object.fromEntries(rows.map((r) => [r.agentId, r.ownerId]));
}

const probersOf = (agentId: string, after = -1) =>
  [...new Set(probes.filter((p) => p.agentId === agentId && p.at > after).map((p) => p.by))].sort();

afterAll(async () => {
  for (const p of processes) {
    await p.manager.stop();
    await p.database.close();
  }
  await fake.close();
});

describe("one watcher per agent across backend processes", () => {
  let a: Process;
  let b: Process;

  it("two processes started together split the agents: each agent is probed by exactly one", async () => {
    await createUser({ id: "usr_o", email: "o@example.com", name: "O" });
    for (const id of AGENTS) {
      await test.db.insert(agents).values({
        id,
        userId: "usr_o",
        name: id,
        url: await fake.urlOf(id),
        runtimeServiceId: `svc_${id}`,
        gatewayTokenEncrypted: sealGatewayToken(KEY, tokenOf(id)),
        status: "running",
      });
    }
    a = backendProcess("backend-A");
    b = backendProcess("backend-B");
    await Promise.all([a.manager.start(), b.manager.start()]);
    await timers.advance(10 * MIN);

    const watchedByA = a.manager.watching();
    const watchedByB = b.manager.watching();
    expect([...watchedByA, ...watchedByB].sort()).toEqual(AGENTS);
    expect(watchedByA.filter((id) => watchedByB.includes(id))).toEqual([]);
    const rows = await owners();
    for (const id of AGENTS) {
      const owner = watchedByA.includes(id) ? "backend-A" : "backend-B";
      expect(probersOf(id)).toEqual([owner]);
      expect(rows[id]).toBe(owner);
      // One probe round per interval, 0 through 10 minutes: nobody probes twice.
      expect(fake.probes(id).map((r) => r.at)).toEqual([0, 2, 4, 6, 8, 10].map((m) => m * MIN));
    }
  });

  it("when a process stops, the other takes its agents over on its next refresh", async () => {
    await a.manager.stop();
    const stoppedAt = clock.now().getTime() - T0.getTime();
    await timers.advance(30_000);
    expect(b.manager.watching()).toEqual(AGENTS);
    await timers.advance(2 * MIN);
    for (const id of AGENTS) expect(probersOf(id, stoppedAt)).toEqual(["backend-B"]);
    expect(Object.values(await owners())).toEqual(AGENTS.map(() => "backend-B"));
  });

  it("when a process dies (its session ends), a newcomer takes every agent over", async () => {
    const c = backendProcess("backend-C");
    await c.manager.start();
    expect(c.manager.watching()).toEqual([]); // B holds every lock

    // B dies: its timers never fire again and PostgreSQL ends its session (as when the process is killed).
    b.scope.dispose();
    await test.pool.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-watchdog:backend-B'",
    );
    await expect
      .poll(
        async () =>
          (
            await test.pool.query(
              "select count(*)::int as n from pg_stat_activity where application_name = 'svc-watchdog:backend-B'",
            )
          ).rows[0].n,
        { message: "backend-B's lock session to end", interval: 10 },
      )
      .toBe(0);
    await expect
      .poll(() => b.manager.watching().length, {
        message: "backend-B to notice it lost its locks",
        interval: 10,
      })
      .toBe(0);
    const diedAt = clock.now().getTime() - T0.getTime();

    await timers.advance(30_000);
    expect(c.manager.watching()).toEqual(AGENTS);
    await timers.advance(2 * MIN);
    for (const id of AGENTS) expect(probersOf(id, diedAt)).toEqual(["backend-C"]);
    expect(Object.values(await owners())).toEqual(AGENTS.map(() => "backend-C"));
  });
});
