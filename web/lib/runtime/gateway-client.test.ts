import { freePort } from "@svc/common";
import { startAgentImpostor, startFakeAgentRuntime } from "@svc/common/testing";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { createGatewayClient, GatewayError } from "./gateway-client";

const ADMIN_PASSWORD = "wrapper-admin-password-0123456789";
const gateway = await startFakeAgentRuntime({
  token: "gateway-token-0123456789abcdef",
  adminPassword: ADMIN_PASSWORD,
});
afterAll(() => gateway.close());
beforeEach(() => {
  gateway.healthStatus = 200;
  gateway.apiFailure = null;
  gateway.apiGarbage = null;
  gateway.delayMs = 0;
  gateway.cron.clear();
});

const client = () =>
  createGatewayClient({ baseUrl: `${gateway.url}/`, token: gateway.token, identityKey: ADMIN_PASSWORD });

describe("runtime gateway client", () => {
  it("reads /healthz without the token, 2xx or not", async () => {
    expect(await client().health()).toEqual({ ok: true, status: 200 });
    expect(gateway.requests.at(-1)?.headers.authorization).toBeUndefined();
    gateway.healthStatus = 503;
    expect(await client().health()).toEqual({ ok: false, status: 503 });
  });

  it("lists sessions with the Bearer token, filling what the runtime leaves out", async () => {
    gateway.sessions = [
      { key: "main", status: "active", messageCount: 4, lastActivityAt: "2026-11-21T09:00:00.000Z" },
      { key: "side" } as never,
    ];
    expect(await client().listSessions()).toEqual([
      { key: "main", status: "active", messageCount: 4, lastActivityAt: "2026-11-21T09:00:00.000Z" },
      { key: "side", status: "unknown", messageCount: 0, lastActivityAt: null },
    ]);
    const sent = gateway.requests.at(-1);
    expect(`${sent?.method} ${sent?.path}`).toBe("GET /api/sessions");
    expect(sent?.headers.authorization).toBe(`Bearer ${gateway.token}`);
  });

  it("puts, lists and deletes cron jobs", async () => {
    const job = await client().putCronJob("heartbeat", {
      enabled: true,
      schedule: { kind: "every", everyMs: 60_000 },
    });
    expect(job).toEqual({
      id: "cron_1",
      name: "heartbeat",
      enabled: true,
      schedule: { kind: "every", everyMs: 60_000 },
      lastRunAt: null,
      nextRunAt: null,
    });
    expect(JSON.parse(gateway.requests.at(-1)?.body.toString() ?? "")).toEqual({
      enabled: true,
      schedule: { kind: "every", everyMs: 60_000 },
    });
    expect(await client().listCronJobs()).toEqual([job]);
    expect(await client().deleteCronJob("heartbeat")).toBe(true);
    expect(await client().deleteCronJob("heartbeat")).toBe(false);
    expect(await client().listCronJobs()).toEqual([]);
  });

  it("epoch-millisecond run times become ISO strings", async () => {
    gateway.cron.set("report", {
      id: "c9",
      name: "report",
      enabled: false,
      schedule: { kind: "every", everyMs: 3_600_000 },
      lastRunAt: 1_795_000_000_000 as never,
      nextRunAt: null,
    });
    expect((await client().listCronJobs())[0]).toMatchObject({
      lastRunAt: new Date(1_795_000_000_000).toISOString(),
      nextRunAt: null,
    });
  });

  it("types every failure", async () => {
    const wrongToken = createGatewayClient({
      baseUrl: gateway.url,
      token: "wrong",
      identityKey: ADMIN_PASSWORD,
    });
    await expect(wrongToken.listSessions()).rejects.toMatchObject({
      kind: "unauthorized",
      status: 401,
      label: "http 401",
    });

    gateway.apiFailure = 502;
    await expect(client().listCronJobs()).rejects.toMatchObject({
      kind: "http",
      status: 502,
      label: "http 502",
    });
    await expect(client().deleteCronJob("x")).rejects.toMatchObject({ kind: "http", status: 502 });

    gateway.apiFailure = null;
    gateway.apiGarbage = "<html>proxy error</html>";
    await expect(client().listSessions()).rejects.toMatchObject({
      kind: "bad_response",
      label: "answer is not JSON",
    });
    gateway.apiGarbage = JSON.stringify({ sessions: "nope" });
    await expect(client().listSessions()).rejects.toMatchObject({
      kind: "bad_response",
      label: "unexpected answer",
    });

    const down = createGatewayClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      token: "t",
      identityKey: "k",
    });
    const refused = await down.health().catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(GatewayError);
    expect(refused).toMatchObject({ kind: "unreachable", status: null, label: "connection refused" });

    gateway.apiGarbage = null;
    gateway.delayMs = 300;
    const slow = createGatewayClient({
      baseUrl: gateway.url,
      token: gateway.token,
      identityKey: ADMIN_PASSWORD,
      timeoutMs: 100,
    });
    await expect(slow.listCronJobs()).rejects.toMatchObject({ kind: "unreachable", label: "timeout (0.1s)" });
  });

  it("sends the token only to the agent's own wrapper, once it proved it", async () => {
    const impostor = await startAgentImpostor();
    try {
      const stolen = createGatewayClient({
        baseUrl: impostor.url,
        token: gateway.token,
        identityKey: ADMIN_PASSWORD,
      });
      await expect(stolen.listSessions()).rejects.toMatchObject({ kind: "unreachable" });
      await expect(
        stolen.putCronJob("x", { enabled: true, schedule: { kind: "every", everyMs: 1000 } }),
      ).rejects.toMatchObject({ kind: "unreachable" });
      expect(impostor.requests.map((r) => r.path.split("?")[0])).toEqual(["/api/identity", "/api/identity"]);
      expect(impostor.credentials).toEqual([]);
      // No key to prove: the token is not sent at all.
      const unproven = createGatewayClient({ baseUrl: gateway.url, token: gateway.token, identityKey: null });
      await expect(unproven.listSessions()).rejects.toMatchObject({ kind: "unauthorized" });
    } finally {
      await impostor.close();
    }
  });
});
