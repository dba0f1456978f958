/** The wrapper as a process (`npm run start --workspace wrapper`) in front of the fake runtime. */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import WebSocket from "ws";

const root = fileURLToPath(new URL("../..", import.meta.url));
const fakeRuntime = join(root, "common/testing/fakes/agent-runtime.mjs");
const PASSWORD = "wrapper-admin-password-123";
let wrapper: ChildProcess;
let base = "";
let dir = "";
// biome-ignore lint/suspicious/noExplicitAny: test reads of JSON bodies
type Json = Record<string, any>;
const json = async (res: Response | Promise<Response>): Promise<Json> => (await (await res).json()) as Json;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-wrapper-"));
  const port = await freePort();
  const runtimePort = await freePort();
  base = `http://127.0.0.1:${port}`;
  wrapper = spawn(process.execPath, ["--import", "tsx", "src/server.ts"], {
    cwd: join(root, "wrapper"),
    env: {
      ...process.env,
      WRAPPER_PORT: String(port),
      RUNTIME_PORT: String(runtimePort),
      HOST: "127.0.0.1",
      RUNTIME_KIND: "external",
      RUNTIME_COMMAND: `${process.execPath} ${fakeRuntime}`,
      OPENCLAW_GATEWAY_TOKEN: "gw-token-xyz",
      OPENCLAW_STATE_DIR: dir,
      WRAPPER_ADMIN_PASSWORD: PASSWORD,
      RUNTIME_HEALTH_POLL_MS: "100",
      LOG_LEVEL: "warn",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  await vi.waitFor(
    async () => {
      const status = await json(fetch(`${base}/api/status`)).catch(() => null);
      if (status?.state !== "running")
        throw new Error(`wrapper did not get the runtime running: ${JSON.stringify(status)}`);
    },
    { timeout: 30_000, interval: 100 },
  );
}, 60_000);

afterAll(async () => {
  if (wrapper && wrapper.exitCode === null) {
    wrapper.kill("SIGTERM");
    await new Promise((r) => wrapper.once("exit", r));
  }
  await rm(dir, { recursive: true, force: true });
});

const admin = { authorization: `Bearer ${PASSWORD}` };

describe("wrapper process", () => {
  it("reports the running runtime; the token only to admins", async () => {
    const anonymous = await json(fetch(`${base}/api/status`));
    expect(anonymous).toMatchObject({
      state: "running",
      running: true,
      configured: true,
      gatewayToken: null,
      terminalSessions: 0,
    });
    const asAdmin = await json(fetch(`${base}/api/status`, { headers: admin }));
    expect(asAdmin.gatewayToken).toBe("gw-token-xyz");
  });

  it("proxies HTTP to the runtime, which got its token and ports", async () => {
    const res = await fetch(`${base}/whoami`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ token: "gw-token-xyz" });
    const env = await json(fetch(`${base}/env`));
    expect(env.PORT).toBeNull();
    expect(env.OPENCLAW_STATE_DIR).toBe(dir);
  });

  it("answers its own routes as Express matches them and sends every other path to the runtime", async () => {
    // Express matches case-insensitively and ignores a trailing slash: these are the wrapper's.
    expect(await json(fetch(`${base}/API/Status/`))).toMatchObject({ state: "running" });
    expect((await fetch(`${base}/api/logs`)).status).toBe(401);
    // A path that only shares a prefix, one the wrapper does not route, and an escaped path: the runtime's.
    for (const path of ["/api/statusx", "/api/gateway/unknown", "/api/st%61tus"]) {
      const res = await fetch(`${base}${path}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ error: "not found", path });
    }
  });

  it("proxies WebSocket upgrades", async () => {
    const ws = new WebSocket(`${base.replace("http", "ws")}/ws`);
    const echoed = await new Promise<string>((resolve, reject) => {
      ws.once("open", () => ws.send("hello runtime"));
      ws.once("message", (data) => resolve(data.toString()));
      ws.once("error", reject);
    });
    ws.close();
    expect(echoed).toBe("hello runtime");
  });

  it("guards management routes: 401 for API calls, a redirect for browsers", async () => {
    expect((await fetch(`${base}/api/logs`)).status).toBe(401);
    const browser = await fetch(`${base}/api/logs`, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(browser.status).toBe(302);
    expect(browser.headers.get("location")).toMatch(/^\/login\?next=/);
    const logs = await json(fetch(`${base}/api/logs?lines=5`, { headers: admin }));
    expect(logs.logs.some((l: { line: string }) => l.line.includes("fake runtime listening"))).toBe(true);
  });

  it("answers 502 {ok: false} while the runtime is stopped, and restarts it", async () => {
    const stop = await fetch(`${base}/api/gateway/stop`, { method: "POST", headers: admin });
    expect(await stop.json()).toEqual({ ok: true, message: "gateway stopped" });
    const down = await fetch(`${base}/whoami`);
    expect(down.status).toBe(502);
    expect(await down.json()).toEqual({ ok: false, error: "runtime unavailable" });
    const restart = await fetch(`${base}/api/gateway/restart`, { method: "POST", headers: admin });
    expect((await json(restart)).ok).toBe(true);
    await expect
      .poll(async () => (await json(fetch(`${base}/api/status`))).state, {
        message: "the runtime comes back",
        timeout: 20_000,
        interval: 100,
      })
      .toBe("running");
    expect((await fetch(`${base}/whoami`)).status).toBe(200);
  }, 30_000);
});
