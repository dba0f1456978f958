/**
 * The fast path against the path it stands in for: the same raw requests sent through a Node server with the
 * runtime proxy (`../proxy.ts`) and through the fast path in front of such a server must put the same bytes
 * on the wire both ways (the `Date` value aside). Each server has its own loopback runtime, so every test
 * also sees which path answered: the fast path's own connections reach `fastRuntime`, what it hands to
 * Node's server reaches `nodeRuntime` through the proxy.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createRuntimeProxy, type RuntimeProxy } from "../proxy";
import { serveRuntimeFastPath } from "./index";

/** What a scripted runtime answers, by request path. */
const ANSWERS: Record<string, string> = {
  "/cl":
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nX-A: 1\r\nSet-Cookie: a=1\r\nx-a: 2\r\nSet-Cookie: b=2\r\n" +
    "Keep-Alive: timeout=5\r\nConnection: keep-alive, X-Priv\r\nX-Priv: p\r\nTE: x\r\nContent-Length: 2\r\n\r\nhi",
  "/plain": 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 11\r\n\r\n{"ok":true}',
  "/chunked":
    "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\n\r\n" +
    "5;x=y\r\nhello\r\n3\r\n ab\r\n0\r\nX-Trailer: t\r\n\r\n",
  "/empty-chunked": "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
  "/204": "HTTP/1.1 204 No Content\r\nX-B: 1\r\n\r\n",
  "/304": 'HTTP/1.1 304 Not Modified\r\nETag: "x"\r\n\r\n',
  "/noreason": "HTTP/1.1 200\r\ncontent-length: 0\r\n\r\n",
  "/http10": "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nold",
  "/close":
    "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\nuntil the runtime closes",
  "/bad-status": "HTTP/1.1 2x0 OK\r\n\r\n",
  "/continue": "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
  "/both-lengths":
    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
  "/mid-reset": "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc",
  "/bye": "HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nbye",
};
const BIG = Buffer.alloc(1_000_000, "0123456789abcdef");
const BIG_HEAD = `HTTP/1.1 200 OK\r\ncontent-type: application/octet-stream\r\ncontent-length: ${BIG.length}\r\n\r\n`;

/** A loopback runtime speaking raw HTTP/1.1 from `ANSWERS`, recording what it received and its connections. */
class ScriptedRuntime {
  readonly server: net.Server;
  received = "";
  opened = 0;
  closed = 0;
  private readonly sockets = new Set<net.Socket>();
  private closeWaiters: (() => void)[] = [];

  constructor() {
    this.server = net.createServer((socket) => {
      this.opened++;
      this.sockets.add(socket);
      socket.on("error", () => {});
      socket.on("close", () => {
        this.sockets.delete(socket);
        this.closed++;
        for (const waiter of this.closeWaiters.splice(0)) waiter();
      });
      let buffered = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        this.received += chunk.toString("latin1");
        buffered = Buffer.concat([buffered, chunk]);
        for (;;) {
          const size = requestSize(buffered);
          if (size === -1) return;
          const head = buffered.subarray(0, size).toString("latin1");
          buffered = buffered.subarray(size);
          this.answer(socket, head.split(" ")[1].split("?")[0]);
        }
      });
    });
  }

  private answer(socket: net.Socket, path: string): void {
    if (path === "/reset") socket.destroy();
    else if (path === "/mid-reset") socket.write(ANSWERS[path], () => socket.destroy());
    else if (path === "/close") socket.end(ANSWERS[path]);
    else if (path === "/bye") socket.end(ANSWERS[path]);
    else if (path === "/big") socket.write(Buffer.concat([Buffer.from(BIG_HEAD), BIG]));
    else if (path === "/big-chunked") {
      socket.write("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n");
      for (let at = 0; at < BIG.length; at += 100_000)
        socket.write(
          `${(100_000).toString(16)}\r\n${BIG.toString("latin1", at, at + 100_000)}\r\n`,
          "latin1",
        );
      socket.write("0\r\n\r\n");
    } else if (path === "/hold") socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nfirst");
    else socket.write(ANSWERS[path] ?? ANSWERS["/plain"], "latin1");
  }

  /** Resolves once `count` of its connections have closed in all. */
  closedAtLeast(count: number): Promise<void> {
    return new Promise((resolve) => {
      const check = () => (this.closed >= count ? resolve() : this.closeWaiters.push(check));
      check();
    });
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** Size of the first complete request in `buf` (head and a length or chunked body), or -1. */
function requestSize(buf: Buffer): number {
  const end = buf.indexOf("\r\n\r\n");
  if (end === -1) return -1;
  const head = buf.subarray(0, end).toString("latin1").toLowerCase();
  const length = /\r\ncontent-length: *(\d+)/.exec(head);
  if (length) return buf.length >= end + 4 + Number(length[1]) ? end + 4 + Number(length[1]) : -1;
  if (/\r\ntransfer-encoding: *chunked/.test(head)) {
    const last = buf.indexOf("\r\n0\r\n\r\n", end);
    return last === -1 ? -1 : last + 7;
  }
  return end + 4;
}

/**
 * How many whole responses `text` holds, one after the other (informational ones skipped; `head` when the
 * requests were HEAD, whose answers have no body whatever their length says).
 */
function countComplete(text: string, head = false): number {
  let count = 0;
  let at = 0;
  for (;;) {
    const end = text.indexOf("\r\n\r\n", at);
    if (end === -1) return count;
    const fields = text.slice(at, end).toLowerCase();
    const status = Number(fields.slice(9, 12));
    const length = /\r\ncontent-length: (\d+)/.exec(fields);
    let next = end + 4;
    if (status >= 200 && status !== 204 && status !== 304 && !head) {
      if (length) next += Number(length[1]);
      else if (fields.includes("\r\ntransfer-encoding: chunked")) {
        const last = text.indexOf("\r\n0\r\n\r\n", end);
        if (last === -1) return count;
        next = last + 7;
      } else return count;
    }
    if (next > text.length) return count;
    if (status >= 200) count++;
    at = next;
  }
}

const responseComplete = (text: string) => countComplete(text) > 0;

/** Opens a connection, writes `raw`, and resolves with what came back once `count` answers are whole or it closed. */
function exchange(
  port: number,
  raw: string | string[],
  count = 1,
): Promise<{ text: string; closed: boolean }> {
  const parts = Array.isArray(raw) ? raw : [raw];
  const head = parts[0]?.startsWith("HEAD ") ?? false;
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    const done = (closed: boolean) => {
      socket.destroy();
      resolve({ text, closed });
    };
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (countComplete(text, head) >= count) done(false);
    });
    socket.on("close", () => done(true));
    socket.on("error", () => {});
    for (const part of parts) socket.write(part, "latin1");
  });
}

/** The body of a chunked answer, chunks joined. */
function dechunk(text: string): string {
  let body = "";
  let at = text.indexOf("\r\n\r\n") + 4;
  for (;;) {
    const eol = text.indexOf("\r\n", at);
    const size = Number.parseInt(text.slice(at, eol), 16);
    if (size === 0) return body;
    body += text.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

const sameDate = (text: string) => text.replace(/\r\nDate: [^\r]*/g, "\r\nDate: (date)");

let nodeRuntime: ScriptedRuntime;
let fastRuntime: ScriptedRuntime;
let nodeProxy: RuntimeProxy;
let plainServer: http.Server;
let fastServer: http.Server;

/** Node's side of both servers: `/own…` is the server's own route, every other path goes to the proxy. */
const listener = (proxy: RuntimeProxy): http.RequestListener => {
  return (req, res) => {
    if (req.url?.startsWith("/own")) {
      res.writeHead(200, { "content-type": "text/plain", "content-length": 3 });
      res.end("own");
      return;
    }
    proxy.http(req, res);
  };
};

beforeAll(async () => {
  nodeRuntime = new ScriptedRuntime();
  fastRuntime = new ScriptedRuntime();
  for (const runtime of [nodeRuntime, fastRuntime])
    await new Promise<void>((r) => runtime.server.listen(0, "127.0.0.1", r));
  nodeProxy = createRuntimeProxy({ port: nodeRuntime.port });
  plainServer = http.createServer(listener(nodeProxy));
  plainServer.on("upgrade", nodeProxy.upgrade);
  fastServer = http.createServer(listener(nodeProxy));
  fastServer.on("upgrade", nodeProxy.upgrade);
  serveRuntimeFastPath(fastServer, {
    port: fastRuntime.port,
    forRuntime: (target) => !target.startsWith("/own"),
  });
  for (const server of [plainServer, fastServer])
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
});

afterAll(async () => {
  nodeProxy.close();
  for (const server of [plainServer, fastServer]) {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
  await nodeRuntime.close();
  await fastRuntime.close();
});

const port = (server: http.Server) => (server.address() as AddressInfo).port;

/** Sends `raw` through both servers; returns both views and which runtime the fast server's request reached. */
async function both(raw: string | string[], count = 1) {
  nodeRuntime.received = "";
  const plain = await exchange(port(plainServer), raw, count);
  const plainSent = nodeRuntime.received;
  nodeRuntime.received = "";
  fastRuntime.received = "";
  const fast = await exchange(port(fastServer), raw, count);
  return {
    plain: { ...plain, text: sameDate(plain.text), sent: plainSent },
    fast: { ...fast, text: sameDate(fast.text), sent: fastRuntime.received || nodeRuntime.received },
    path: fastRuntime.received ? "fast" : nodeRuntime.received ? "node" : "none",
  };
}

const GET = (path: string, fields = "") => `GET ${path} HTTP/1.1\r\nHost: example.test\r\n${fields}\r\n`;

describe("the fast path writes what the Node server path writes", () => {
  const taken: [string, string][] = [
    [
      "GET, with forwarding fields a client made up, odd cases and blanks",
      GET(
        "/cl?x=1",
        "User-Agent: t\r\nX-Forwarded-For: 203.0.113.7\r\nx-forwarded-host: evil\r\nForwarded: for=1\r\n" +
          "X-Real-IP: 1.2.3.4\r\nConnection: keep-alive\r\nKeep-Alive: 5\r\nX-Spaced:  a b \t\r\nProxy-Authorization: x\r\n",
      ),
    ],
    [
      "POST with a body",
      "POST /plain HTTP/1.1\r\nHost: h\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
    ],
    ["POST with an empty body", "POST /plain HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"],
    ["POST without a length", "POST /plain HTTP/1.1\r\nHost: h\r\n\r\n"],
    ["PUT and PATCH", "PUT /plain HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\n\r\nx"],
    ["GET with a zero length", GET("/plain", "Content-Length: 0\r\n")],
    ["GET with a body", "GET /plain HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"],
    ["DELETE with a zero length", "DELETE /plain HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"],
    ["OPTIONS", "OPTIONS /plain HTTP/1.1\r\nHost: h\r\n\r\n"],
    ["an answer with hop-by-hop and scattered fields", GET("/cl")],
    ["a chunked answer with extensions and trailers", GET("/chunked")],
    ["an empty chunked answer", GET("/empty-chunked")],
    ["204", GET("/204")],
    ["304", GET("/304")],
    ["a status line without a reason", GET("/noreason")],
    ["an HTTP/1.0 answer", GET("/http10")],
    ["an answer that ends when the runtime closes", GET("/close")],
    ["a status line that is not HTTP", GET("/bad-status")],
    ["100 Continue from the runtime", GET("/continue")],
    ["both a length and chunked", GET("/both-lengths")],
    ["a runtime that closes before answering", GET("/reset")],
    ["a large answer", GET("/big")],
    ["an escaped path (the wrapper's routes decide on those, through `forRuntime`)", GET("/a%20b")],
  ];
  it.each(taken)("%s", async (_name, raw) => {
    const { plain, fast, path } = await both(raw);
    expect(path).toBe("fast");
    expect(fast.sent).toBe(plain.sent);
    expect(fast.text).toBe(plain.text);
    expect(fast.closed).toBe(plain.closed);
  });

  it("a large chunked answer: the same head and body (Node re-chunks as the bytes arrive)", async () => {
    const { plain, fast, path } = await both(GET("/big-chunked"));
    expect(path).toBe("fast");
    expect(fast.sent).toBe(plain.sent);
    const head = (text: string) => text.slice(0, text.indexOf("\r\n\r\n"));
    expect(head(fast.text)).toBe(head(plain.text));
    expect(dechunk(fast.text) === BIG.toString("latin1")).toBe(true);
    expect(dechunk(plain.text) === BIG.toString("latin1")).toBe(true);
  });

  it("a runtime that breaks off its answer: the same bytes, then the client's connection closes", async () => {
    const { plain, fast, path } = await both(GET("/mid-reset"));
    expect(path).toBe("fast");
    expect(fast.sent).toBe(plain.sent);
    expect(plain.closed).toBe(true);
    expect(fast.closed).toBe(true);
    expect(fast.text).toBe(plain.text);
  });

  const handed: [string, string | string[]][] = [
    ["the server's own route", GET("/own")],
    ["HEAD", "HEAD /plain HTTP/1.1\r\nHost: h\r\n\r\n"],
    ["Connection: close", GET("/plain", "Connection: close\r\n")],
    ["HTTP/1.0", "GET /plain HTTP/1.0\r\nHost: h\r\n\r\n"],
    [
      "a chunked upload",
      "POST /plain HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n",
    ],
    [
      "Expect: 100-continue",
      "POST /plain HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\nhi",
    ],
    ["an absolute target", "GET http://example.test/plain HTTP/1.1\r\nHost: example.test\r\n\r\n"],
    ["no Host", "GET /plain HTTP/1.1\r\nUser-Agent: t\r\n\r\n"],
    ["two Hosts", "GET /plain HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n"],
    ["a folded field", GET("/plain", "X-Long: a\r\n b\r\n")],
    ["a field name with a space", GET("/plain", "Bad Name: x\r\n")],
    ["a lower-case method", "get /plain HTTP/1.1\r\nHost: h\r\n\r\n"],
  ];
  it.each(handed)("hands over %s", async (_name, raw) => {
    const { plain, fast, path } = await both(raw);
    expect(path).not.toBe("fast");
    expect(fast.sent).toBe(plain.sent);
    expect(fast.text).toBe(plain.text);
    expect(fast.closed).toBe(plain.closed);
  });

  it("a head in two writes: whole when read, else handed over with the part read", async () => {
    const { plain, fast } = await both(["GET /plain HTTP/1.1\r\nHo", "st: h\r\n\r\n"]);
    expect(fast.sent).toBe(plain.sent);
    expect(fast.text).toBe(plain.text);
  });
});

describe("fast path connections", () => {
  it("a client that half-closes after its request: what Node's server does (it aborts the request)", async () => {
    const halfClosed = (server: http.Server) =>
      new Promise<string>((resolve) => {
        const socket = net.connect(port(server), "127.0.0.1");
        let text = "";
        socket.on("data", (chunk: Buffer) => {
          text += chunk.toString("latin1");
        });
        socket.on("close", () => resolve(sameDate(text)));
        socket.end(GET("/plain"));
      });
    expect(await halfClosed(fastServer)).toBe(await halfClosed(plainServer));
  });

  it("Node's timeouts: 408 for a connection that sends nothing, and for a body that stops coming", async () => {
    const options = { connectionsCheckingInterval: 100, headersTimeout: 300, requestTimeout: 500 };
    const plain = http.createServer(options, listener(nodeProxy));
    const fast = http.createServer(options, listener(nodeProxy));
    serveRuntimeFastPath(fast, { port: fastRuntime.port, forRuntime: () => true });
    for (const server of [plain, fast]) await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const stalled = "POST /plain HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nab";
    const [idlePlain, idleFast, bodyPlain, bodyFast] = await Promise.all([
      exchange(port(plain), []),
      exchange(port(fast), []),
      exchange(port(plain), stalled),
      exchange(port(fast), stalled),
    ]);
    for (const server of [plain, fast]) await new Promise((r) => server.close(r));
    const timeout = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n";
    expect(idlePlain).toEqual({ text: timeout, closed: true });
    expect(idleFast).toEqual(idlePlain);
    expect(bodyPlain).toEqual({ text: timeout, closed: true });
    expect(bodyFast).toEqual(bodyPlain);
  });

  it("keep one connection to the runtime for the requests of one client connection, pipelined or not", async () => {
    const opened = fastRuntime.opened;
    const { text } = await exchange(port(fastServer), [GET("/plain"), GET("/plain") + GET("/chunked")], 3);
    expect(countComplete(text)).toBe(3);
    expect(text.match(/HTTP\/1\.1 (\d+)/g)).toEqual(["HTTP/1.1 200", "HTTP/1.1 200", "HTTP/1.1 201"]);
    expect(fastRuntime.opened - opened).toBe(1);
  });

  it("hand the connection to Node at the first request they do not take, the bytes after it too", async () => {
    nodeRuntime.received = "";
    fastRuntime.received = "";
    const { text } = await exchange(
      port(fastServer),
      GET("/plain") + GET("/own") + GET("/204") + GET("/cl"),
      4,
    );
    expect(countComplete(text)).toBe(4);
    expect(text).toContain("\r\n\r\nown");
    // The first went the fast way, the rest through Node's server and the proxy.
    expect(fastRuntime.received.match(/^GET \S+/gm)).toEqual(["GET /plain"]);
    expect(nodeRuntime.received.match(/^GET \S+/gm)).toEqual(["GET /204", "GET /cl"]);
  });

  it("relay a body that arrives in pieces, then the next request", async () => {
    fastRuntime.received = "";
    const body = "b".repeat(300_000);
    const head = `POST /plain HTTP/1.1\r\nHost: h\r\nContent-Length: ${body.length}\r\n\r\n`;
    const { text } = await exchange(
      port(fastServer),
      [head, body.slice(0, 1000), body.slice(1000, 200_000), body.slice(200_000) + GET("/204")],
      2,
    );
    expect(countComplete(text)).toBe(2);
    expect(fastRuntime.received).toContain(
      `x-forwarded-host: h\r\ncontent-length: 300000\r\n\r\n${body}GET /204`,
    );
  });

  it("close the runtime's connection when the client goes away mid-answer", async () => {
    const closed = fastRuntime.closed;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port(fastServer), "127.0.0.1");
      socket.on("data", () => socket.destroy());
      socket.on("close", () => resolve());
      socket.write(GET("/hold"));
    });
    await fastRuntime.closedAtLeast(closed + 1);
    expect(fastRuntime.closed).toBeGreaterThan(closed);
  });

  it("open a new connection to the runtime when it closed the idle one", async () => {
    const closed = fastRuntime.closed;
    const opened = fastRuntime.opened;
    const socket = net.connect(port(fastServer), "127.0.0.1");
    const answers: string[] = [];
    let text = "";
    const answered = () =>
      new Promise<void>((resolve) => {
        const onData = (chunk: Buffer) => {
          text += chunk.toString("latin1");
          if (!responseComplete(text)) return;
          answers.push(text);
          text = "";
          socket.off("data", onData);
          resolve();
        };
        socket.on("data", onData);
      });
    socket.write(GET("/bye"));
    await answered();
    await fastRuntime.closedAtLeast(closed + 1);
    socket.write(GET("/plain"));
    await answered();
    socket.destroy();
    expect(answers[0]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\nbye$/);
    expect(answers[1]).toMatch(/^HTTP\/1\.1 200 OK\r\n[\s\S]*\r\n\r\n\{"ok":true\}$/);
    expect(fastRuntime.opened - opened).toBe(2);
  });

  it("close when idle past the server's keep-alive timeout, and when the server closes idle connections", async () => {
    const server = http.createServer(listener(nodeProxy));
    serveRuntimeFastPath(server, { port: fastRuntime.port, forRuntime: () => true });
    server.keepAliveTimeout = 100;
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const idleAfterOneRequest = () =>
      new Promise<{ socket: net.Socket; closed: Promise<void> }>((resolve) => {
        const socket = net.connect(port(server), "127.0.0.1");
        const closed = new Promise<void>((r) => socket.on("close", () => r()));
        let text = "";
        socket.on("data", (chunk: Buffer) => {
          text += chunk.toString("latin1");
          if (responseComplete(text)) resolve({ socket, closed });
        });
        socket.write(GET("/plain"));
      });
    const timedOut = await idleAfterOneRequest();
    await timedOut.closed;
    server.keepAliveTimeout = 60_000;
    const idle = await idleAfterOneRequest();
    server.closeIdleConnections();
    await idle.closed;
    expect(idle.socket.destroyed).toBe(true);
    await new Promise((r) => server.close(r));
  });
});
