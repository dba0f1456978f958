import { createLogger } from "@svc/common";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { createPermissionBus, encodeEvent, PERMISSION_CHANNEL, type PermissionEvent } from "./bus";

const logger = createLogger("bus-test", "silent");
const connectionString = process.env.DATABASE_URL ?? "";
const buses: Array<ReturnType<typeof createPermissionBus>> = [];
afterAll(async () => {
  for (const bus of buses) await bus.stop();
});

async function startedBus() {
  const bus = createPermissionBus({ connectionString, logger });
  buses.push(bus);
  await bus.start();
  return bus;
}

/** Collects events and resolves `until(predicate)` once one matches. */
function recorder(bus: ReturnType<typeof createPermissionBus>) {
  const events: PermissionEvent[] = [];
  const waiting: Array<{ match: (e: PermissionEvent) => boolean; resolve: () => void }> = [];
  const unsubscribe = bus.subscribe((event) => {
    events.push(event);
    for (const w of [...waiting]) if (w.match(event)) w.resolve();
  });
  return {
    events,
    unsubscribe,
    until(match: (e: PermissionEvent) => boolean): Promise<void> {
      if (events.some(match)) return Promise.resolve();
      return new Promise((resolve) => waiting.push({ match, resolve }));
    },
  };
}

const decision = (requestId: string): PermissionEvent => ({
  type: "decision",
  userId: "usr_a",
  requestId,
  decision: "approve",
  status: "approved",
  timestamp: 1_700_000_000_000,
});
const isDecision = (id: string) => (e: PermissionEvent) => e.type === "decision" && e.requestId === id;

describe("permission bus (LISTEN/NOTIFY)", () => {
  it("every bus, the publishing one included, delivers each event exactly once", async () => {
    const a = await startedBus();
    const b = await startedBus();
    const onA = recorder(a);
    const onA2 = recorder(a);
    const onB = recorder(b);
    const request: PermissionEvent = {
      type: "permission_request",
      userId: "usr_a",
      request: {
        id: "perm_1_x",
        command: "npm install left-pad",
        tier: "dangerous",
        reason: "r",
        agentId: "agt_1",
      },
    };
    await a.publish(request);
    await b.publish(decision("perm_1_x"));
    // A later marker: once it has arrived, every earlier event has been delivered (one session, in order).
    await a.publish(decision("marker-1"));
    await Promise.all([onA, onA2, onB].map((r) => r.until(isDecision("marker-1"))));
    for (const r of [onA, onA2, onB]) {
      expect(r.events).toEqual([request, decision("perm_1_x"), decision("marker-1")]);
    }
  });

  it("an unsubscribed listener hears nothing more; a stopped bus refuses to publish", async () => {
    const a = await startedBus();
    const gone = recorder(a);
    const kept = recorder(a);
    gone.unsubscribe();
    await a.publish(decision("after-unsubscribe"));
    await kept.until(isDecision("after-unsubscribe"));
    expect(gone.events).toEqual([]);
    await a.stop();
    await expect(a.publish(decision("x"))).rejects.toThrow("stopped");
  });

  it("a permission request whose command is too long for NOTIFY is shortened, and still delivered", async () => {
    const a = await startedBus();
    const onA = recorder(a);
    const command = `echo ${'é"x'.repeat(5_000)}`;
    const event: PermissionEvent = {
      type: "permission_request",
      userId: "usr_a",
      request: { id: "perm_2_big", command, tier: "dangerous", reason: "r", agentId: "agt_1" },
    };
    expect(Buffer.byteLength(encodeEvent(event))).toBeLessThanOrEqual(7_900);
    await a.publish(event);
    await onA.until((e) => e.type === "permission_request" && e.request.id === "perm_2_big");
    const got = onA.events[0];
    if (got?.type !== "permission_request") throw new Error("expected a permission request");
    expect(got.request.command.endsWith("…")).toBe(true);
    expect(command.startsWith(got.request.command.slice(0, -1))).toBe(true);
    expect(got.request.command.length).toBeGreaterThan(1_000);
    expect({ ...got.request, command: "" }).toEqual({ ...event.request, command: "" });
  });

  it("malformed notifications on the channel are ignored; listeners keep working", async () => {
    const a = await startedBus();
    const onA = recorder(a);
    const client = new pg.Client({ connectionString });
    await client.connect();
    for (const payload of ["not json", "[]", '{"type":"decision"}', '{"type":"other","userId":"u"}']) {
      await client.query("select pg_notify($1, $2)", [PERMISSION_CHANNEL, payload]);
    }
    await client.end();
    await a.publish(decision("after-garbage"));
    await onA.until(isDecision("after-garbage"));
    expect(onA.events).toEqual([decision("after-garbage")]);
  });

  it("a listener that throws does not stop the others", async () => {
    const a = await startedBus();
    a.subscribe(() => {
      throw new Error("boom");
    });
    const onA = recorder(a);
    await a.publish(decision("after-throw"));
    await onA.until(isDecision("after-throw"));
    expect(onA.events).toEqual([decision("after-throw")]);
  });

  it("the listener reconnects after its connection is killed", async () => {
    const a = await startedBus();
    const onA = recorder(a);
    const admin = new pg.Client({ connectionString });
    await admin.connect();
    const killed = await admin.query(
      "select pg_terminate_backend(pid) from pg_stat_activity where application_name = 'svc-permission-bus' and datname = current_database()",
    );
    await admin.end();
    expect(killed.rowCount).toBeGreaterThan(0);
    // Events sent while it is down are lost (documented); keep sending until one arrives.
    for (let n = 0; ; n++) {
      await a.publish(decision(`retry-${n}`));
      const arrived = await Promise.race([
        onA.until(isDecision(`retry-${n}`)).then(() => true),
        new Promise<boolean>((resolve) => setTimeout(() => resolve(false), 200)),
      ]);
      if (arrived) break;
    }
    const last = onA.events.at(-1);
    expect(last?.type).toBe("decision");
  });
});
