/**
 * Dashboard health against real loopback servers that answer, refuse, reset, close, hang or answer 503,
 * and a database address nobody listens on.
 */
import { createServer as createHttpServer, type Server as HttpServer } from "node:http";
import { createServer as createTcpServer, type Socket, type Server as TcpServer } from "node:net";
import { freePort } from "@svc/common";
import { type FakeUpstream, sendJson, startFakeUpstream } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { afterAll, describe, expect, it } from "vitest";
import { GET } from "@/app/api/health/dashboard/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import {
  checkDashboardHealth,
  dashboardTargets,
  LOCAL_BACKEND_URL,
  LOCAL_SUMMARIZER_URL,
  probeDatabase,
  probeHttpService,
} from "./dashboard";
import { networkErrorLabel } from "./network-errors";

const FAST = { timeoutMs: 150, retryTimeoutMs: 200 };

const backend: FakeUpstream = await startFakeUpstream((_req, res) =>
  sendJson(res, 200, { status: "ok", service: "backend" }),
);
const summarizer: FakeUpstream = await startFakeUpstream((_req, res) =>
  sendJson(res, 200, { status: "ok", service: "summarizer", version: "1.0.0" }),
);
const unhealthy: FakeUpstream = await startFakeUpstream((_req, res) =>
  sendJson(res, 503, { status: "unhealthy" }),
);

/** A TCP server doing `onSocket` with each connection; counts the requests that reached it. */
async function tcpServer(onSocket: (socket: Socket) => void) {
  let requests = 0;
  const sockets = new Set<Socket>();
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    socket.once("data", () => requests++);
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Resets (RST) each connection once the request arrives. */
const resetting = await tcpServer((socket) => socket.once("data", () => socket.resetAndDestroy()));
/** Closes (FIN) each connection without answering. */
const closing = await tcpServer((socket) => socket.once("data", () => socket.destroy()));
/** Accepts and never answers. */
const hanging = await tcpServer(() => undefined);
/** Resets the first connection, answers 200 after that. */
let flakyCalls = 0;
const flaky: HttpServer = createHttpServer((_req, res) => sendJson(res, 200, { status: "ok" }));
flaky.on("connection", (socket: Socket) => {
  if (flakyCalls++ === 0) socket.resetAndDestroy();
});
await new Promise<void>((resolve) => flaky.listen(0, "127.0.0.1", resolve));
const flakyUrl = `http://127.0.0.1:${(flaky.address() as { port: number }).port}`;
const refusedUrl = `http://127.0.0.1:${await freePort()}`;

const { config } = useWebTestContext({ BACKEND_URL: backend.url, SUMMARIZER_URL: summarizer.url });
afterAll(async () => {
  await Promise.all([backend.close(), summarizer.close(), unhealthy.close()]);
  await Promise.all([resetting.close(), closing.close(), hanging.close()]);
  flaky.closeAllConnections();
  await new Promise((resolve) => flaky.close(resolve));
});

describe("GET /api/health/dashboard", () => {
  it("needs a session", async () => {
    const res = await call(GET, { path: "/api/health/dashboard" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
  });

  it("probes web, backend, summarizer and database for a signed-in user", async () => {
    const { jar } = await signedInUser();
    const calls = backend.requests.length;
    const res = await call(GET, { path: "/api/health/dashboard", jar });
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body.services.web).toEqual({
      status: "up",
      latencyMs: 0,
      health: expect.stringMatching(/^(healthy|degraded|unhealthy)$/),
    });
    expect(body.services.backend).toEqual({ status: "up", latencyMs: expect.any(Number) });
    expect(body.services.database).toEqual({ status: "up", latencyMs: expect.any(Number) });
    expect(body.services.summarizer).toEqual({ status: "up", latencyMs: expect.any(Number) });
    expect(body.status).toBe("ok");
    expect(body.checkedAt).toBe("2026-11-21T10:00:00.000Z");
    expect(backend.requests.slice(calls).map((r) => `${r.method} ${r.path}`)).toEqual(["GET /health"]);
  });
});

describe("dashboard health probes", () => {
  it("is ok when every service answers", async () => {
    const report = await checkDashboardHealth(webContext(), {
      ...FAST,
      targets: { backend: [backend.url], summarizer: [summarizer.url] },
    });
    expect(report.status).toBe("ok");
    expect(Object.keys(report.services)).toEqual(["web", "backend", "summarizer", "database"]);
    expect(report.services.summarizer).toEqual({ status: "up", latencyMs: expect.any(Number) });
  });

  it("names a refused connection, and the overall status turns degraded", async () => {
    const report = await checkDashboardHealth(webContext(), {
      ...FAST,
      targets: { backend: [backend.url], summarizer: [refusedUrl] },
    });
    expect(report.status).toBe("degraded");
    expect(report.services.summarizer).toEqual({
      status: "down",
      latencyMs: expect.any(Number),
      error: "connection refused",
    });
    expect(report.services.backend.status).toBe("up");
  });

  it("falls through to the next candidate URL", async () => {
    const calls = summarizer.requests.length;
    expect(await probeHttpService([refusedUrl, summarizer.url], FAST)).toEqual({
      status: "up",
      latencyMs: expect.any(Number),
    });
    expect(summarizer.requests.length).toBe(calls + 1);
  });

  it("retries the primary once after every candidate failed, and takes its answer", async () => {
    flakyCalls = 0;
    expect(await probeHttpService([flakyUrl], FAST)).toMatchObject({ status: "up" });
    expect(flakyCalls).toBe(2);
  });

  it("a reset connection is `connection reset`; the primary got the candidate try and the retry", async () => {
    const before = resetting.requests();
    expect(await probeHttpService([resetting.url, refusedUrl], FAST)).toMatchObject({
      status: "down",
      error: "connection reset",
    });
    expect(resetting.requests() - before).toBe(2);
  });

  it("a connection closed without an answer is `socket error`", async () => {
    expect(await probeHttpService([closing.url], FAST)).toMatchObject({
      status: "down",
      error: "socket error",
    });
  });

  it("a server that never answers is a timeout labelled with the retry's deadline", async () => {
    const before = hanging.requests();
    expect(await probeHttpService([hanging.url], FAST)).toMatchObject({
      status: "down",
      error: "timeout (0.2s)",
    });
    expect(hanging.requests() - before).toBe(2);
  });

  it("a name that does not resolve is `dns error`", async () => {
    expect(await probeHttpService(["http://no-such-host.invalid"], FAST)).toMatchObject({
      status: "down",
      error: "dns error",
    });
  });

  it("a non-2xx answer is degraded with its status", async () => {
    expect(await probeHttpService([unhealthy.url], FAST)).toEqual({
      status: "degraded",
      latencyMs: expect.any(Number),
      error: "http 503",
      httpStatus: 503,
    });
  });

  it("an unreachable database is down with its label", async () => {
    const dead = connectDatabase(`postgres://nobody:x@127.0.0.1:${await freePort()}/none`);
    try {
      expect(await probeDatabase(dead.db, FAST)).toMatchObject({
        status: "down",
        error: "connection refused",
      });
    } finally {
      await dead.close();
    }
  });

  it("candidates come from configuration, configured address first, duplicates dropped", () => {
    expect(dashboardTargets(config)).toEqual({
      backend: [backend.url, LOCAL_BACKEND_URL],
      summarizer: [summarizer.url, LOCAL_SUMMARIZER_URL],
    });
    expect(
      dashboardTargets({ BACKEND_URL: `${LOCAL_BACKEND_URL}/`, SUMMARIZER_URL: "http://sum.internal:4100" }),
    ).toEqual({
      backend: [LOCAL_BACKEND_URL],
      summarizer: ["http://sum.internal:4100", LOCAL_SUMMARIZER_URL],
    });
  });

  it("labels the default deadlines as the spec writes them", () => {
    const timeout = Object.assign(new Error("aborted"), { name: "TimeoutError" });
    expect(networkErrorLabel(timeout, 8_000)).toBe("timeout (8s)");
    expect(networkErrorLabel(new TypeError("fetch failed", { cause: { code: "EAI_AGAIN" } }), 6_000)).toBe(
      "dns error",
    );
    expect(networkErrorLabel(new Error("something else"), 6_000)).toBe("unreachable");
  });
});
