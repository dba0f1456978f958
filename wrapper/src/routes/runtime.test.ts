import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { freePort, ManualClock } from "@svc/common";
import express, { type Request, type RequestHandler } from "express";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { wrapperErrorMapper } from "../http/errors";
import { createSupervisor, type Supervisor } from "../runtime/supervisor";
import { runtimeRoutes } from "./runtime";

const FAKE_RUNTIME = fileURLToPath(
  new URL("../../../common/testing/fakes/agent-runtime.mjs", import.meta.url),
);
const ADMIN = { "x-admin-token": "let-me-in" };

// Stand-ins for the other engineer's admin check.
const isAdmin = (req: Request) => req.get("x-admin-token") === "let-me-in";
const requireAdmin: RequestHandler = (req, res, next) => {
  if (isAdmin(req)) next();
  else res.status(401).json({ ok: false, error: "unauthorized" });
};

let supervisor: Supervisor;
let runtimePort: number;
let server: Server;
let base: string;
const app = express();

beforeAll(async () => {
  runtimePort = await freePort();
  supervisor = createSupervisor({
    argv: [process.execPath, FAKE_RUNTIME],
    port: runtimePort,
    token: "gw-token-abc",
    stateDir: "/tmp/wrapper-routes",
    configPath: "/tmp/wrapper-routes/openclaw.json",
    env: { ...process.env, FAKE_RUNTIME_READY_AFTER_MS: "100" },
    healthPollMs: 25,
    stopTimeoutMs: 2_000,
  });
  app.use(
    runtimeRoutes({
      supervisor,
      requireAdmin,
      isAdmin,
      ffmpeg: { available: true, version: "6.1.1" },
      aiProvider: () => "anthropic",
      permissionHook: "unverified",
      clock: new ManualClock("2026-07-08T09:10:11.000Z"),
    }),
  );
  app.use(wrapperErrorMapper());
  server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  await supervisor.start();
  await supervisor.waitFor("running");
});

afterAll(async () => {
  await supervisor.stop();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

/** Reads `data:` events of an SSE response one at a time; also records `: ping` comments. */
function sseReader(response: Response) {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const comments: string[] = [];
  return {
    comments,
    async next(timeoutMs = 15_000): Promise<unknown> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const end = buffer.indexOf("\n\n");
        if (end !== -1) {
          const frame = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (frame.startsWith(":")) {
            comments.push(frame);
            continue;
          }
          expect(frame.startsWith("data: ")).toBe(true);
          return JSON.parse(frame.slice("data: ".length));
        }
        const remaining = deadline - Date.now();
        if (remaining <= 0) throw new Error("no SSE event in time");
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) =>
            setTimeout(() => reject(new Error("no SSE event in time")), remaining),
          ),
        ]);
        if (chunk.done) throw new Error("SSE stream ended");
        buffer += decoder.decode(chunk.value, { stream: true });
      }
    },
    cancel: () => reader.cancel(),
  };
}

describe("GET /api/status", () => {
  it("answers without auth, hiding the gateway token from non-admins", async () => {
    const res = await request(app).get("/api/status");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      state: "running",
      running: true,
      configured: true,
      uptime: expect.any(Number),
      terminalSessions: 0,
      gatewayToken: null,
      aiProvider: "anthropic",
      runtime: { ffmpeg: { available: true, version: "6.1.1" } },
      permissionHook: "unverified",
      reason: null,
      ts: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(res.body.uptime).toBeGreaterThanOrEqual(0);
    // `ts` comes from the injected clock.
    expect(res.body.ts).toBe("2026-07-08T09:10:11.000Z");
  });

  it("shows the gateway token to admins", async () => {
    const res = await request(app).get("/api/status").set(ADMIN);
    expect(res.body.gatewayToken).toBe("gw-token-abc");
    expect(res.body.state).toBe("running");
  });
});

describe("GET /api/logs", () => {
  beforeAll(() => {
    for (let i = 0; i < 600; i++) supervisor.logs.push("stdout", `entry ${i}`);
  });

  it("needs admin", async () => {
    const res = await request(app).get("/api/logs");
    expect(res.status).toBe(401);
  });

  it("returns the last 100 entries by default", async () => {
    const res = await request(app).get("/api/logs").set(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body.logs).toHaveLength(100);
    expect(res.body.logs[99]).toEqual({ ts: expect.any(String), stream: "stdout", line: "entry 599" });
    expect(res.body.logs[0].line).toBe("entry 500");
  });

  it("honours lines and clamps it to 500", async () => {
    const few = await request(app).get("/api/logs?lines=3").set(ADMIN);
    expect(few.body.logs.map((e: { line: string }) => e.line)).toEqual([
      "entry 597",
      "entry 598",
      "entry 599",
    ]);
    const many = await request(app).get("/api/logs?lines=100000").set(ADMIN);
    expect(many.status).toBe(200);
    expect(many.body.logs).toHaveLength(500);
  });

  it.each(["abc", "0", "-5", "2.5", ""])("rejects lines=%j with 400", async (lines) => {
    const res = await request(app).get(`/api/logs?lines=${lines}`).set(ADMIN);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: expect.stringContaining("lines") });
  });
});

describe("GET /api/logs/stream", () => {
  it("needs admin", async () => {
    const res = await fetch(`${base}/api/logs/stream`);
    expect(res.status).toBe(401);
  });

  it("sends the last 50 entries, then live ones, and forgets the client on close", async () => {
    const subscribersBefore = supervisor.logs.subscriberCount;
    const history = supervisor.logs.tail(50);
    const res = await fetch(`${base}/api/logs/stream`, { headers: ADMIN });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    expect(res.headers.get("x-accel-buffering")).toBe("no");
    const events = sseReader(res);
    const received = [];
    for (let i = 0; i < 50; i++) received.push(await events.next());
    expect(received).toEqual(history);
    await fetch(`http://127.0.0.1:${runtimePort}/print?text=${encodeURIComponent("live line\n")}`);
    expect(await events.next()).toEqual({ ts: expect.any(String), stream: "stdout", line: "live line" });
    expect(supervisor.logs.subscriberCount).toBe(subscribersBefore + 1);
    await events.cancel();
    await expect.poll(() => supervisor.logs.subscriberCount, { interval: 10 }).toBe(subscribersBefore);
  });
});

describe("GET /api/events and the gateway controls", () => {
  it("need admin", async () => {
    expect((await fetch(`${base}/api/events`)).status).toBe(401);
    expect((await request(app).post("/api/gateway/restart")).status).toBe(401);
    expect((await request(app).post("/api/gateway/stop")).status).toBe(401);
    expect(supervisor.state).toBe("running");
  });

  it("restart answers ok and the event stream shows the state now, then each change", async () => {
    const res = await fetch(`${base}/api/events`, { headers: ADMIN });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const events = sseReader(res);
    expect(await events.next()).toEqual({ state: "running" });
    const pid = supervisor.pid;
    const restart = await request(app).post("/api/gateway/restart").set(ADMIN);
    expect(restart.status).toBe(200);
    expect(restart.body).toEqual({ ok: true, message: expect.any(String) });
    expect(await events.next()).toEqual({ state: "stopped" });
    expect(await events.next()).toEqual({ state: "starting" });
    expect(await events.next()).toEqual({ state: "running" });
    expect(supervisor.pid).not.toBe(pid);
    await events.cancel();
    await expect.poll(() => supervisor.listenerCount("state"), { interval: 10 }).toBe(0);
  });

  it("stop answers ok and leaves the gateway stopped; status follows", async () => {
    const res = await request(app).post("/api/gateway/stop").set(ADMIN);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, message: expect.any(String) });
    expect(supervisor.state).toBe("stopped");
    const status = await request(app).get("/api/status");
    expect(status.body).toMatchObject({ state: "stopped", running: false, uptime: 0 });
    await supervisor.start();
    await supervisor.waitFor("running");
  });
});
