import http, { type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { freePort } from "@svc/common";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocket, WebSocketServer } from "ws";
import { serveRuntimeFastPath } from "./fast-proxy";
import { createRuntimeProxy, type RuntimeProxy } from "./proxy";

/**
 * Every test runs against both ways a request reaches the runtime: the proxy behind Node's HTTP server, and
 * the fast path in front of it (which hands what it does not take, like the chunked upload, to the former).
 */
type Front = "Node server" | "fast path";
const FRONTS: Front[] = ["Node server", "fast path"];

let upstream: http.Server;
let upstreamPort: number;
let proxy: RuntimeProxy;
const servers = new Map<Front, http.Server>();
const urls = new Map<Front, string>();
const seen: {
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  method?: string;
  url?: string;
  body: string;
}[] = [];

beforeAll(async () => {
  upstream = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ headers: req.headers, rawHeaders: req.rawHeaders, method: req.method, url: req.url, body });
      if (req.url === "/stream") {
        res.writeHead(200, { "content-type": "text/plain", "x-custom": "1", "keep-alive": "timeout=5" });
        res.write("first\n");
        // The second chunk waits for the test to confirm it received the first one.
        gate.release = () => res.end("second\n");
        return;
      }
      if (req.url === "/hop") {
        res.writeHead(200, {
          connection: "x-private, keep-alive",
          "x-private": "drop me",
          "x-public": "keep",
        });
        res.end("ok");
        return;
      }
      res.writeHead(req.method === "POST" ? 201 : 200, {
        "content-type": "application/json",
        "set-cookie": ["a=1", "b=2"],
      });
      res.end(JSON.stringify({ method: req.method, url: req.url, body }));
    });
  });
  const wss = new WebSocketServer({ server: upstream });
  wss.on("connection", (socket, req) => {
    socket.send(`hello ${req.url} ${req.headers["x-forwarded-for"]}`);
    socket.on("message", (data) => socket.send(`echo:${data}`));
  });
  await new Promise<void>((r) => upstream.listen(0, "127.0.0.1", r));
  upstreamPort = (upstream.address() as AddressInfo).port;
  proxy = createRuntimeProxy({ port: upstreamPort });
  for (const front of FRONTS) {
    const server = frontServer(front, proxy, upstreamPort);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    servers.set(front, server);
    urls.set(front, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  }
});

afterAll(async () => {
  proxy.close();
  for (const server of servers.values()) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  upstream.closeAllConnections();
  await new Promise((r) => upstream.close(r));
});

function frontServer(front: Front, runtimeProxy: RuntimeProxy, port: number): http.Server {
  const server = http.createServer(runtimeProxy.http);
  server.on("upgrade", runtimeProxy.upgrade);
  if (front === "fast path") serveRuntimeFastPath(server, { port, forRuntime: () => true });
  return server;
}

const gate: { release?: () => void } = {};

describe.each(FRONTS)("runtime proxy (HTTP), %s", (front) => {
  let proxyUrl = "";
  beforeAll(() => {
    proxyUrl = urls.get(front) as string;
  });

  it("passes a GET through with status, headers and body", async () => {
    const res = await fetch(`${proxyUrl}/api/thing?x=1`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.getSetCookie()).toEqual(["a=1", "b=2"]);
    expect(await res.json()).toEqual({ method: "GET", url: "/api/thing?x=1", body: "" });
  });

  it("passes a POST body through (also chunked) and the upstream status", async () => {
    const res = await fetch(`${proxyUrl}/items`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "x" }),
    });
    expect(res.status).toBe(201);
    expect(await res.json()).toEqual({ method: "POST", url: "/items", body: '{"name":"x"}' });

    const big = "y".repeat(200_000);
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big.slice(0, 100_000)));
        controller.enqueue(new TextEncoder().encode(big.slice(100_000)));
        controller.close();
      },
    });
    const chunked = await fetch(`${proxyUrl}/upload`, {
      method: "POST",
      body: stream,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(201);
    expect(((await chunked.json()) as { body: string }).body).toBe(big);
  });

  it("streams the answer chunk by chunk", async () => {
    const res = await fetch(`${proxyUrl}/stream`);
    expect(res.headers.get("x-custom")).toBe("1");
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = await reader.read();
    // The first chunk arrived while the upstream still holds the rest back.
    expect(new TextDecoder().decode(first.value)).toBe("first\n");
    expect(gate.release).toBeTypeOf("function");
    gate.release?.();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += new TextDecoder().decode(value);
    }
    expect(rest).toBe("second\n");
  });

  it("sets X-Forwarded-For/-Proto/-Host from the connection, whatever the client claims", async () => {
    seen.length = 0;
    await fetch(`${proxyUrl}/xff`);
    const plain = seen[0].headers;
    expect(plain["x-forwarded-for"]).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(plain["x-forwarded-proto"]).toBe("http");
    expect(plain["x-forwarded-host"]).toBe(new URL(proxyUrl).host);
    expect(plain.host).toBe(new URL(proxyUrl).host);

    // Spoofed values, one header sent twice, odd cases: none of them reaches the runtime.
    seen.length = 0;
    await new Promise<void>((resolve, reject) => {
      const req = http.request(`${proxyUrl}/xff`, {
        // A flat list (like rawHeaders) sends duplicates as they are; Node adds no Host to it.
        headers: [
          "Host",
          new URL(proxyUrl).host,
          "X-Forwarded-For",
          "203.0.113.7",
          "x-forwarded-for",
          "198.51.100.9",
          "X-Forwarded-Proto",
          "https",
          "X-FORWARDED-HOST",
          "admin.example",
          "X-Forwarded-Port",
          "443",
          "X-Real-IP",
          "203.0.113.8",
          "Forwarded",
          "for=203.0.113.9;proto=https",
          "X-End-To-End",
          "kept",
        ],
      });
      req.on("response", (res) => {
        expect(res.statusCode).toBe(200);
        res.resume();
        res.on("end", resolve);
      });
      req.on("error", reject);
      req.end();
    });
    const sent = seen[0].headers;
    expect(sent["x-forwarded-for"]).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(sent["x-forwarded-proto"]).toBe("http");
    expect(sent["x-forwarded-host"]).toBe(new URL(proxyUrl).host);
    expect(sent["x-forwarded-port"]).toBeUndefined();
    expect(sent["x-real-ip"]).toBeUndefined();
    expect(sent.forwarded).toBeUndefined();
    expect(sent["x-end-to-end"]).toBe("kept");
    // Each forwarding header arrives exactly once.
    const rawSeen = seen[0].rawHeaders.filter((_v, i) => i % 2 === 0).map((n) => n.toLowerCase());
    for (const name of ["x-forwarded-for", "x-forwarded-proto", "x-forwarded-host"]) {
      expect(rawSeen.filter((n) => n === name)).toHaveLength(1);
    }
  });

  it("drops hop-by-hop headers both ways, including those named in Connection", async () => {
    seen.length = 0;
    const status = await new Promise<{ headers: IncomingHttpHeaders }>((resolve, reject) => {
      const req = http.request(`${proxyUrl}/hop`, {
        headers: {
          connection: "keep-alive, x-secret-hop",
          "x-secret-hop": "1",
          "proxy-authorization": "Basic abc",
          te: "trailers",
          "keep-alive": "timeout=9",
          "x-end-to-end": "yes",
        },
      });
      req.on("response", (res) => {
        res.resume();
        res.on("end", () => resolve({ headers: res.headers }));
      });
      req.on("error", reject);
      req.end();
    });
    const sent = seen[0].headers;
    expect(sent["x-end-to-end"]).toBe("yes");
    expect(sent["x-secret-hop"]).toBeUndefined();
    expect(sent["proxy-authorization"]).toBeUndefined();
    expect(sent.te).toBeUndefined();
    expect(sent["keep-alive"]).toBeUndefined();
    expect(status.headers["x-public"]).toBe("keep");
    expect(status.headers["x-private"]).toBeUndefined();
  });

  it("answers 502 {ok: false, error: 'runtime unavailable'} when the runtime is down", async () => {
    const downPort = await freePort();
    const down = createRuntimeProxy({ port: downPort });
    const server = frontServer(front, down, downPort);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const res = await fetch(`${url}/anything`);
      expect(res.status).toBe(502);
      expect(await res.json()).toEqual({ ok: false, error: "runtime unavailable" });
      const ws = new WebSocket(`${url.replace("http", "ws")}/ws`);
      const status = await new Promise<number | undefined>((resolve) => {
        ws.on("unexpected-response", (_req, res) => resolve(res.statusCode));
        ws.on("error", () => resolve(undefined));
      });
      expect(status).toBe(502);
    } finally {
      down.close();
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});

describe.each(FRONTS)("runtime proxy (WebSocket), %s", (front) => {
  let proxyUrl = "";
  beforeAll(() => {
    proxyUrl = urls.get(front) as string;
  });

  it("echoes through the proxy, with the wrapper's own X-Forwarded-For on the upgrade", async () => {
    const ws = new WebSocket(`${proxyUrl.replace("http", "ws")}/ws?room=1`, {
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    const messages: string[] = [];
    const done = new Promise<void>((resolve, reject) => {
      ws.on("message", (data) => {
        messages.push(String(data));
        if (messages.length === 1) ws.send("ping");
        if (messages.length === 2) resolve();
      });
      ws.on("error", reject);
    });
    await done;
    ws.close();
    expect(messages[0]).toMatch(/^hello \/ws\?room=1 (::ffff:)?127\.0\.0\.1$/);
    expect(messages[1]).toBe("echo:ping");
  });
});
