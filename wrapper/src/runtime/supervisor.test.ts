import { fileURLToPath } from "node:url";
import { freePort, ManualClock } from "@svc/common";
import { afterEach, describe, expect, it } from "vitest";
import { createSupervisor, type GatewayState, type Supervisor, type SupervisorOptions } from "./supervisor";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
const started: Supervisor[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((s) => s.stop()));
});

async function makeSupervisor(
  overrides: Partial<SupervisorOptions> = {},
  env: Record<string, string> = {},
): Promise<{ supervisor: Supervisor; port: number; states: GatewayState[] }> {
  const port = overrides.port ?? (await freePort());
  const supervisor = createSupervisor({
    argv: [process.execPath, FAKE_RUNTIME],
    port,
    token: "tok-123",
    stateDir: "/tmp/state-dir",
    configPath: "/tmp/state-dir/openclaw.json",
    env: { ...process.env, FAKE_RUNTIME_READY_AFTER_MS: "150", ...env },
    healthPollMs: 25,
    stopTimeoutMs: 2_000,
    ...overrides,
  });
  started.push(supervisor);
  const states: GatewayState[] = [];
  supervisor.on("state", (state) => states.push(state));
  return { supervisor, port, states };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const lines = (s: Supervisor) => s.logs.tail(500).map((e) => e.line);

describe("runtime supervisor", () => {
  it("starts as stopped, then goes starting → running once /healthz answers {ok: true}", async () => {
    const { supervisor, port, states } = await makeSupervisor();
    expect(supervisor.state).toBe("stopped");
    await supervisor.start();
    expect(supervisor.state).toBe("starting");
    expect(supervisor.pid).toBeTypeOf("number");
    await supervisor.waitFor("running");
    expect(states).toEqual(["starting", "running"]);
    const whoami = await (await fetch(`http://127.0.0.1:${port}/whoami`)).json();
    expect(whoami).toEqual({ token: "tok-123" });
    await expect.poll(() => supervisor.logs.size, { interval: 10 }).toBeGreaterThanOrEqual(2);
    expect(supervisor.logs.tail(10)).toEqual(
      expect.arrayContaining([
        { ts: expect.any(String), stream: "stdout", line: `fake runtime listening on ${port}` },
        { ts: expect.any(String), stream: "stderr", line: `fake runtime stderr ready on ${port}` },
      ]),
    );
  });

  it("gives the runtime its port, token and paths, and no PORT", async () => {
    const { supervisor, port } = await makeSupervisor({}, { PORT: "9999" });
    await supervisor.start();
    await supervisor.waitFor("running");
    const env = await (await fetch(`http://127.0.0.1:${port}/env`)).json();
    expect(env).toEqual({
      PORT: null,
      OPENCLAW_GATEWAY_PORT: String(port),
      OPENCLAW_GATEWAY_TOKEN: "tok-123",
      OPENCLAW_STATE_DIR: "/tmp/state-dir",
      OPENCLAW_CONFIG_PATH: "/tmp/state-dir/openclaw.json",
    });
    expect(supervisor.gatewayToken).toBe("tok-123");
  });

  it("marks an unrequested exit crashed and restarts after a 1 s backoff", async () => {
    const { supervisor, port, states } = await makeSupervisor();
    await supervisor.start();
    await supervisor.waitFor("running");
    const firstPid = supervisor.pid;
    await fetch(`http://127.0.0.1:${port}/crash`, { method: "POST" });
    await supervisor.waitFor("crashed");
    expect(lines(supervisor)).toContain(
      "[wrapper] runtime exited unexpectedly (code 3); restarting in 1000 ms",
    );
    const crashedAt = Date.now();
    await supervisor.waitFor("starting");
    expect(Date.now() - crashedAt).toBeGreaterThanOrEqual(900);
    await supervisor.waitFor("running");
    expect(states).toEqual(["starting", "running", "crashed", "starting", "running"]);
    expect(supervisor.pid).not.toBe(firstPid);
  });

  it("doubles the backoff per crash and resets it after 5 minutes up", async () => {
    const clock = new ManualClock();
    const { supervisor, port } = await makeSupervisor({ clock, initialBackoffMs: 40, maxBackoffMs: 100 });
    await supervisor.start();
    const crashOnce = async () => {
      await supervisor.waitFor("running");
      await fetch(`http://127.0.0.1:${port}/crash`, { method: "POST" });
      await supervisor.waitFor("crashed");
      return lines(supervisor).at(-1);
    };
    expect(await crashOnce()).toMatch(/restarting in 40 ms$/);
    expect(await crashOnce()).toMatch(/restarting in 80 ms$/);
    expect(await crashOnce()).toMatch(/restarting in 100 ms$/);
    await supervisor.waitFor("running");
    clock.advance(5 * 60_000);
    expect(supervisor.uptimeSeconds()).toBe(300);
    expect(await crashOnce()).toMatch(/restarting in 40 ms$/);
    expect(supervisor.uptimeSeconds()).toBe(0);
  });

  it("reports uptime from the last running, 0 otherwise", async () => {
    const clock = new ManualClock();
    const { supervisor } = await makeSupervisor({ clock });
    expect(supervisor.uptimeSeconds()).toBe(0);
    await supervisor.start();
    expect(supervisor.uptimeSeconds()).toBe(0);
    await supervisor.waitFor("running");
    clock.advance(12_500);
    expect(supervisor.uptimeSeconds()).toBe(12);
    await supervisor.stop();
    expect(supervisor.uptimeSeconds()).toBe(0);
  });

  it("stops with SIGTERM into stopped and does not restart", async () => {
    const { supervisor, states } = await makeSupervisor();
    await supervisor.start();
    await supervisor.waitFor("running");
    const pid = supervisor.pid as number;
    await supervisor.stop();
    expect(supervisor.state).toBe("stopped");
    expect(supervisor.pid).toBeNull();
    expect(isAlive(pid)).toBe(false);
    expect(lines(supervisor).at(-1)).toBe("[wrapper] runtime stopped (code 0)");
    // A sleep: no restart may come, and a restart's backoff would have fired by now.
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(states).toEqual(["starting", "running", "stopped"]);
  });

  it("sends SIGKILL after the stop timeout when SIGTERM is ignored", async () => {
    const { supervisor } = await makeSupervisor({ stopTimeoutMs: 300 }, { FAKE_RUNTIME_IGNORE_SIGTERM: "1" });
    await supervisor.start();
    await supervisor.waitFor("running");
    const pid = supervisor.pid as number;
    const begun = Date.now();
    await supervisor.stop();
    expect(Date.now() - begun).toBeGreaterThanOrEqual(290);
    expect(supervisor.state).toBe("stopped");
    expect(isAlive(pid)).toBe(false);
    expect(lines(supervisor)).toEqual(
      expect.arrayContaining([
        "fake runtime ignoring SIGTERM",
        "[wrapper] runtime ignored SIGTERM for 300 ms; sending SIGKILL",
        "[wrapper] runtime stopped (signal SIGKILL)",
      ]),
    );
  });

  it("restart stops and starts a new process", async () => {
    const { supervisor, states } = await makeSupervisor();
    await supervisor.start();
    await supervisor.waitFor("running");
    const pid = supervisor.pid as number;
    await supervisor.restart();
    expect(isAlive(pid)).toBe(false);
    await supervisor.waitFor("running");
    expect(supervisor.pid).not.toBe(pid);
    expect(states).toEqual(["starting", "running", "stopped", "starting", "running"]);
  });

  it("keeps a partial line until its newline and flushes it on exit; cuts lines at 8 KB", async () => {
    const { supervisor, port } = await makeSupervisor();
    await supervisor.start();
    await supervisor.waitFor("running");
    const print = (text: string) => fetch(`http://127.0.0.1:${port}/print?text=${encodeURIComponent(text)}`);
    await print("hello ");
    // A sleep: the partial line must NOT appear, and its absence has no event to wait for.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(lines(supervisor)).not.toContain("hello ");
    await print("world\n");
    await expect.poll(() => lines(supervisor), { interval: 10 }).toContain("hello world");
    await print(`${"x".repeat(10_000)}\n`);
    await expect.poll(() => lines(supervisor).some((l) => l.startsWith("xxx")), { interval: 10 }).toBe(true);
    expect(lines(supervisor).find((l) => l.startsWith("xxx"))).toHaveLength(8192);
    // Written before /print answered; stop's exit flushes it once the pipes are drained (`close`).
    await print("no newline at exit");
    await supervisor.stop();
    expect(supervisor.logs.tail(2)).toEqual([
      { ts: expect.any(String), stream: "stdout", line: "no newline at exit" },
      { ts: expect.any(String), stream: "stderr", line: "[wrapper] runtime stopped (code 0)" },
    ]);
  });

  it("a command that cannot be spawned is crashed, logged and retried with backoff", async () => {
    const { supervisor, states } = await makeSupervisor({
      argv: ["/nonexistent/openclaw-gateway", "run"],
      initialBackoffMs: 30,
    });
    await supervisor.start();
    await supervisor.waitFor("crashed");
    expect(lines(supervisor)[0]).toMatch(
      /^\[wrapper\] runtime could not be started: \/nonexistent\/openclaw-gateway: .*ENOENT.*; restarting in 30 ms$/,
    );
    await expect.poll(() => lines(supervisor).length, { interval: 10 }).toBeGreaterThanOrEqual(2);
    expect(lines(supervisor)[1]).toMatch(/restarting in 60 ms$/);
    await supervisor.stop();
    expect(supervisor.state).toBe("stopped");
    expect(states.slice(0, 4)).toEqual(["starting", "crashed", "starting", "crashed"]);
  });

  it("notices the exit even when a grandchild keeps the output pipes open", async () => {
    const { supervisor } = await makeSupervisor({
      argv: ["/bin/sh", "-c", "echo parent; sleep 20 & exit 5"],
      initialBackoffMs: 10_000,
    });
    await supervisor.start();
    // Well before the grandchild lets go of the pipes (20 s).
    await supervisor.waitFor("crashed", 10_000);
    expect(lines(supervisor)).toEqual([
      "parent",
      "[wrapper] runtime exited unexpectedly (code 5); restarting in 10000 ms",
    ]);
    await supervisor.stop();
    expect(supervisor.state).toBe("stopped");
  });
});
