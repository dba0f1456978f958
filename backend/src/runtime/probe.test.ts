/**
 * The shared probe against real loopback agents: every row of its classification (probe.ts), the
 * per-probe timeouts, `statusReason` only when `/api/status` decided, and that the three probes run at once.
 */
import type { ServerResponse } from "node:http";
import { freePort, ManualClock } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { afterEach, describe, expect, it } from "vitest";
import { classify, isUp, type ProbeCheck, probeRuntime } from "./probe";

/**
 * What one path of the fake agent does: answer (status and JSON body, once `after` settled), hang forever,
 * or drop the socket.
 */
type Behaviour = { status: number; body?: unknown; after?: Promise<unknown> } | "hang" | "reset";

interface AgentBehaviour {
  healthz?: Behaviour;
  readyz?: Behaviour;
  status?: Behaviour;
}

const servers: FakeUpstream[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

const NOT_FOUND: Behaviour = { status: 404, body: { error: "not found" } };

/**
 * A fake agent (wrapper in front of a runtime) answering the three probe paths as told; 404 elsewhere.
 * `closed` hears each request's path when its connection closes (a hanging one: when the prober gave up).
 */
async function fakeAgent(
  behaviour: AgentBehaviour,
  closed: (path: string) => void = () => undefined,
): Promise<FakeUpstream> {
  const server = await startFakeUpstream(async (req, res) => {
    const path = (req.url ?? "/").split("?")[0];
    res.on("close", () => closed(path));
    const chosen =
      path === "/healthz"
        ? behaviour.healthz
        : path === "/readyz"
          ? behaviour.readyz
          : path === "/api/status"
            ? behaviour.status
            : undefined;
    await act(res, chosen ?? NOT_FOUND);
  });
  servers.push(server);
  return server;
}

async function act(res: ServerResponse, behaviour: Behaviour): Promise<void> {
  if (behaviour === "hang") return;
  if (behaviour === "reset") {
    res.socket?.destroy();
    return;
  }
  await behaviour.after;
  sendJson(res, behaviour.status, behaviour.body ?? {});
}

const LEGACY_OK = {
  healthz: { status: 200, body: { ok: true } },
  readyz: { status: 200, body: { ready: true } },
};

describe("probeRuntime: checkedAt", () => {
  it("comes from the injected clock", async () => {
    const agent = await fakeAgent({ ...LEGACY_OK, status: { status: 200, body: { running: true } } });
    const clock = new ManualClock("2026-02-03T04:05:06.000Z");
    expect((await probeRuntime(agent.url, { clock })).checkedAt).toBe("2026-02-03T04:05:06.000Z");
  });
});

describe("probeRuntime: /api/status answers 200 (authoritative)", () => {
  it("configured false gives setup, whatever else the body and the legacy probes say", async () => {
    const agent = await fakeAgent({
      ...LEGACY_OK,
      status: { status: 200, body: { configured: false, running: true, state: "running" } },
    });
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("setup");
    expect(result.statusReason).toBe("/api/status: configured false");
    expect(result.runtime).toEqual({ configured: false, running: true, state: "running" });
  });

  it("running true gives running even when /healthz and /readyz answer 404", async () => {
    const agent = await fakeAgent({
      healthz: NOT_FOUND,
      readyz: NOT_FOUND,
      status: { status: 200, body: { configured: true, running: true, state: "running", uptime: 12 } },
    });
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("running");
    expect(result.statusReason).toBe("/api/status: running true");
    expect(result.checks.healthz).toMatchObject({ ok: false, status: 404 });
    expect(result.checks.readyz).toMatchObject({ ok: false, status: 404 });
    expect(result.checks.apiStatus).toMatchObject({ ok: true, status: 200 });
    expect(result.runtime).toMatchObject({ running: true, uptime: 12 });
  });

  it("state running (no running field) gives running, with the legacy probes failing", async () => {
    const agent = await fakeAgent({
      healthz: { status: 503, body: { ok: false } },
      readyz: "reset",
      status: { status: 200, body: { state: "running" } },
    });
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("running");
    expect(result.statusReason).toBe("/api/status: state running");
  });

  it("running false gives stopped even when both legacy probes answer 200", async () => {
    const agent = await fakeAgent({
      ...LEGACY_OK,
      status: { status: 200, body: { configured: true, running: false, state: "crashed" } },
    });
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("stopped");
    expect(result.statusReason).toBe("/api/status: running false");
    expect(result.runtime).toMatchObject({ state: "crashed" });
  });

  it("state stopped (no running field) gives stopped", async () => {
    const agent = await fakeAgent({ ...LEGACY_OK, status: { status: 200, body: { state: "stopped" } } });
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("stopped");
    expect(result.statusReason).toBe("/api/status: state stopped");
  });

  it("any other state falls back to the legacy probes: healthy, starting, unhealthy", async () => {
    const healthy = await fakeAgent({ ...LEGACY_OK, status: { status: 200, body: { state: "starting" } } });
    const healthyResult = await probeRuntime(healthy.url);
    expect(healthyResult.status).toBe("healthy");
    expect("statusReason" in healthyResult).toBe(false);
    // The body still reaches the caller although it did not decide.
    expect(healthyResult.runtime).toEqual({ state: "starting" });

    const starting = await fakeAgent({
      healthz: { status: 200, body: { ok: true } },
      readyz: { status: 503, body: { ready: false } },
      status: { status: 200, body: { state: "starting" } },
    });
    const startingResult = await probeRuntime(starting.url);
    expect(startingResult.status).toBe("starting");
    expect("statusReason" in startingResult).toBe(false);

    const unhealthy = await fakeAgent({
      healthz: { status: 503, body: { ok: false } },
      readyz: { status: 503, body: { ready: false } },
      status: { status: 200, body: { state: "upgrading" } },
    });
    const unhealthyResult = await probeRuntime(unhealthy.url);
    expect(unhealthyResult.status).toBe("unhealthy");
    expect("statusReason" in unhealthyResult).toBe(false);
  });

  it("a 200 /api/status that is not a JSON object falls back to the legacy probes", async () => {
    const agent = await startFakeUpstream((req, res) => {
      if ((req.url ?? "").startsWith("/api/status")) {
        res.writeHead(200, { "content-type": "text/html" });
        res.end("<html>setup wizard</html>");
        return;
      }
      sendJson(res, 200, { ok: true });
    });
    servers.push(agent);
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("healthy");
    expect(result.statusReason).toBeUndefined();
    expect(result.runtime).toBeUndefined();
  });
});

describe("probeRuntime: /api/status does not answer 200", () => {
  it("both legacy probes 200 gives healthy (status 404, 500, or a dropped connection)", async () => {
    for (const status of [NOT_FOUND, { status: 500, body: { ok: false } }, "reset" as const]) {
      const agent = await fakeAgent({ ...LEGACY_OK, status });
      const result = await probeRuntime(agent.url);
      expect(result.status).toBe("healthy");
      expect(result.statusReason).toBeUndefined();
      expect(result.runtime).toBeUndefined();
      expect(result.checks.healthz).toMatchObject({ ok: true, status: 200 });
      expect(result.checks.readyz).toMatchObject({ ok: true, status: 200 });
      expect(result.checks.apiStatus.ok).toBe(false);
    }
  });

  it("/healthz 200 with /readyz not 200 gives starting", async () => {
    const agent = await fakeAgent({
      healthz: { status: 200, body: { ok: true } },
      readyz: { status: 503, body: { ready: false } },
      status: NOT_FOUND,
    });
    const result = await probeRuntime(agent.url);
    expect(result.status).toBe("starting");
    expect(result.statusReason).toBeUndefined();
    expect(result.checks.readyz).toMatchObject({ ok: false, status: 503 });
  });

  it("every probe failing to connect gives unreachable, each check saying why", async () => {
    const port = await freePort();
    const result = await probeRuntime(`http://127.0.0.1:${port}`);
    expect(result.status).toBe("unreachable");
    expect(result.statusReason).toBeUndefined();
    expect(result.runtime).toBeUndefined();
    for (const check of Object.values(result.checks)) {
      expect(check).toMatchObject({ ok: false, error: "connection refused" });
      expect(check.status).toBeUndefined();
    }
    expect(isUp(result.status)).toBe(false);
  });

  it("an agent answering every probe with an error status is unreachable too", async () => {
    const agent = await fakeAgent({
      healthz: { status: 502, body: {} },
      readyz: { status: 502, body: {} },
      status: { status: 502, body: {} },
    });
    expect((await probeRuntime(agent.url)).status).toBe("unreachable");
  });

  it("/healthz failing while /readyz answers (where the spec is silent) gives unhealthy", async () => {
    const agent = await fakeAgent({
      healthz: { status: 500, body: {} },
      readyz: { status: 200, body: { ready: true } },
      status: NOT_FOUND,
    });
    expect((await probeRuntime(agent.url)).status).toBe("unhealthy");
  });
});

describe("probeRuntime: timeouts and concurrency", () => {
  it("each probe gives up after its own timeout: hanging probes end as timeouts, and all hanging is unreachable", async () => {
    const agent = await fakeAgent({ healthz: "hang", readyz: "hang", status: "hang" });
    const result = await probeRuntime(agent.url, {
      healthzTimeoutMs: 50,
      readyzTimeoutMs: 50,
      statusTimeoutMs: 50,
    });
    expect(result.status).toBe("unreachable");
    for (const check of Object.values(result.checks)) {
      expect(check).toMatchObject({ ok: false, error: "timeout" });
    }
  });

  it("a short timeout on one probe does not cut the others short", async () => {
    // /readyz hangs with a 50 ms timeout; /healthz answers once both other probes gave up, within its 10 s
    // timeout; /api/status hangs with a 50 ms timeout. The result is starting: healthz ok, readyz timed out.
    let gaveUp: () => void = () => undefined;
    const othersGaveUp = new Promise<void>((resolve) => {
      gaveUp = resolve;
    });
    const abandoned = new Set<string>();
    const agent = await fakeAgent(
      { healthz: { status: 200, body: { ok: true }, after: othersGaveUp }, readyz: "hang", status: "hang" },
      (path) => {
        if (path !== "/healthz") abandoned.add(path);
        if (abandoned.size === 2) gaveUp();
      },
    );
    const result = await probeRuntime(agent.url, {
      healthzTimeoutMs: 10_000,
      readyzTimeoutMs: 50,
      statusTimeoutMs: 50,
    });
    expect(result.status).toBe("starting");
    expect(result.checks.healthz).toMatchObject({ ok: true, status: 200 });
    expect(result.checks.readyz).toMatchObject({ ok: false, error: "timeout" });
    expect(result.checks.apiStatus).toMatchObject({ ok: false, error: "timeout" });
  });

  it("a hanging /api/status times out and the legacy probes decide", async () => {
    const agent = await fakeAgent({ ...LEGACY_OK, status: "hang" });
    const result = await probeRuntime(agent.url, { statusTimeoutMs: 50 });
    expect(result.status).toBe("healthy");
    expect(result.checks.apiStatus).toMatchObject({ ok: false, error: "timeout" });
    expect(result.statusReason).toBeUndefined();
  });

  it("the three probes are sent at once: all three requests arrive before any is answered", async () => {
    const arrived: string[] = [];
    let allArrivedBeforeFirstAnswer: boolean | undefined;
    const waiting: Array<() => void> = [];
    const agent = await startFakeUpstream(async (req, res) => {
      arrived.push((req.url ?? "/").split("?")[0]);
      // Hold every answer until three requests are in. A sequential probe would never send the second
      // request while the first is held; the fallback releases it so such a probe fails the assertion
      // below rather than hanging the test.
      const released = new Promise<void>((resolve) => {
        waiting.push(resolve);
        setTimeout(resolve, 3_000).unref();
      });
      if (arrived.length === 3) for (const release of waiting) release();
      await released;
      allArrivedBeforeFirstAnswer ??= arrived.length === 3;
      sendJson(res, 200, req.url === "/api/status" ? { state: "running" } : { ok: true });
    });
    servers.push(agent);
    const result = await probeRuntime(agent.url);
    expect(allArrivedBeforeFirstAnswer).toBe(true);
    expect([...arrived].sort()).toEqual(["/api/status", "/healthz", "/readyz"]);
    expect(result.status).toBe("running");
  });

  it("a trailing slash on the base URL is not doubled", async () => {
    const agent = await fakeAgent({ ...LEGACY_OK, status: NOT_FOUND });
    await probeRuntime(`${agent.url}/`);
    expect(agent.requests.map((r) => r.path).sort()).toEqual(["/api/status", "/healthz", "/readyz"]);
  });
});

describe("classify (pure)", () => {
  const ok = (status = 200): ProbeCheck => ({ ok: status === 200, status, durationMs: 1 });
  const down: ProbeCheck = { ok: false, error: "connection refused", durationMs: 1 };

  it("applies the spec's precedence: configured, running, state running, running false, state stopped", () => {
    expect(classify(ok(), ok(), ok(), { configured: false, running: true })).toEqual({
      status: "setup",
      statusReason: "/api/status: configured false",
    });
    expect(classify(down, down, ok(), { running: true, state: "stopped" }).status).toBe("running");
    expect(classify(down, down, ok(), { state: "running", running: false }).status).toBe("running");
    expect(classify(ok(), ok(), ok(), { running: false }).status).toBe("stopped");
    expect(classify(ok(), ok(), ok(), { state: "stopped" }).status).toBe("stopped");
  });

  it("ignores a body that came with a non-200 /api/status", () => {
    expect(classify(ok(), ok(), ok(500), { running: false })).toEqual({ status: "healthy" });
  });

  it("isUp: running, healthy and setup are up; the rest are not", () => {
    expect(["running", "healthy", "setup"].every((s) => isUp(s as never))).toBe(true);
    expect(["starting", "stopped", "unhealthy", "unreachable"].some((s) => isUp(s as never))).toBe(false);
  });
});
