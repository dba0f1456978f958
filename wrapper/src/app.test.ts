import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLogger, type LogLevel } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWrapperServer, isOwnPath } from "./app";
import { loadWrapperConfig } from "./config";
import { createRuntimeProxy } from "./proxy";
import { createSupervisor } from "./runtime/supervisor";

describe("isOwnPath: which requests the wrapper's Express app sees", () => {
  it("takes every path under the wrapper's own prefixes, in any case, with or without a query", () => {
    for (const url of [
      "/api/status",
      "/API/STATUS/",
      "/api/logs?lines=5",
      "/api/logs/stream",
      "/api/events",
      "/api/gateway/restart",
      "/api/config",
      "/api/pairing/pending",
      "/api/identity?challenge=00",
      "/login?next=/",
      "/logout",
    ])
      expect(isOwnPath(url), url).toBe(true);
  });

  it("leaves the runtime's paths to the proxy", () => {
    for (const url of ["/", "/v1/chat/completions", "/healthz", "/ws?x=/api/status", "/apistatus"])
      expect(isOwnPath(url), url).toBe(false);
  });

  it("lets Express decide on escaped paths", () => {
    expect(isOwnPath("/api/st%61tus")).toBe(true);
    expect(isOwnPath("/%2e%2e/api/status")).toBe(true);
  });
});

describe("createWrapperServer", () => {
  let runtime: http.Server;
  let runtimePort = 0;
  let dir = "";
  const seenByRuntime: string[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-wrapper-server-"));
    runtime = http.createServer((req, res) => {
      seenByRuntime.push(`${req.method} ${req.url}`);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ runtime: true, url: req.url }));
    });
    await new Promise<void>((r) => runtime.listen(0, "127.0.0.1", r));
    runtimePort = (runtime.address() as AddressInfo).port;
  });

  afterAll(async () => {
    runtime.closeAllConnections();
    await new Promise((r) => runtime.close(r));
    await rm(dir, { recursive: true, force: true });
  });

  /** One request through `agent`: status, headers, body and the local port of the connection it used. */
  function send(agent: http.Agent, url: string, method = "GET") {
    return new Promise<{ status?: number; headers: http.IncomingHttpHeaders; body: string; socket?: number }>(
      (resolve, reject) => {
        const req = http.request(url, { agent, method }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () =>
            resolve({ status: res.statusCode, headers: res.headers, body, socket: req.socket?.localPort }),
          );
        });
        req.on("error", reject);
        req.end(method === "POST" ? "{}" : undefined);
      },
    );
  }

  /** The wrapper's server (its runtime not started: the test's server stands in for it) at `level`. */
  async function start(level: LogLevel) {
    const lines: string[] = [];
    const config = loadWrapperConfig({
      RUNTIME_KIND: "external",
      RUNTIME_PORT: String(runtimePort),
      OPENCLAW_STATE_DIR: dir,
      WRAPPER_ADMIN_PASSWORD: "wrapper-server-test-password",
    });
    const supervisor = createSupervisor({
      argv: config.runtimeArgv,
      port: config.RUNTIME_PORT,
      token: null,
      stateDir: dir,
      configPath: config.configPath,
      env: config.processEnv,
      healthPollMs: config.RUNTIME_HEALTH_POLL_MS,
      stopTimeoutMs: config.RUNTIME_STOP_TIMEOUT_MS,
    });
    const proxy = createRuntimeProxy({ port: runtimePort });
    const server = createWrapperServer({
      config,
      supervisor,
      proxy,
      ffmpeg: { available: false, version: null },
      logger: createLogger("wrapper", level, { write: (line) => lines.push(line) }),
      openclaw: null,
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const stop = async () => {
      proxy.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    };
    return { base, lines, stop };
  }

  it("sends the runtime's requests to it and answers its own routes, on one connection", async () => {
    const { base, stop } = await start("info");
    // One keep-alive connection for all three: the own route comes after the fast path took the first.
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    try {
      seenByRuntime.length = 0;
      const first = await send(agent, `${base}/v1/models?x=1`);
      expect(JSON.parse(first.body)).toEqual({ runtime: true, url: "/v1/models?x=1" });
      // Not logged at info level: no request id.
      expect(first.headers["x-request-id"]).toBeUndefined();
      const status = await send(agent, `${base}/api/status`);
      expect(status.status).toBe(200);
      expect(JSON.parse(status.body)).toMatchObject({ state: "stopped", running: false });
      expect(status.headers["x-request-id"]).toMatch(/.+/);
      const after = await send(agent, `${base}/v1/after`, "POST");
      expect(JSON.parse(after.body)).toEqual({ runtime: true, url: "/v1/after" });
      expect(seenByRuntime).toEqual(["GET /v1/models?x=1", "POST /v1/after"]);
      expect(new Set([first.socket, status.socket, after.socket]).size).toBe(1);
    } finally {
      agent.destroy();
      await stop();
    }
  });

  it("at debug level sends the runtime's requests through the listener, which logs them", async () => {
    const { base, lines, stop } = await start("debug");
    try {
      const res = await fetch(`${base}/v1/models`);
      expect(await res.json()).toEqual({ runtime: true, url: "/v1/models" });
      const requestId = res.headers.get("x-request-id");
      expect(requestId).toMatch(/.+/);
      const logged = lines.map((line) => JSON.parse(line)).find((entry) => entry.requestId === requestId);
      expect(logged).toMatchObject({ msg: "request", method: "GET", path: "/v1/models", status: 200 });
    } finally {
      await stop();
    }
  });
});
