import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";

export interface RuntimeProxy {
  http(req: IncomingMessage, res: ServerResponse): void;
  upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void;
  /** Closes the idle keep-alive connections to the runtime. */
  close(): void;
}

export interface RuntimeProxyOptions {
  port: number;
  host?: string;
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  // Node's server already answered `Expect: 100-continue`; forwarding it would ask the runtime again.
  "expect",
]);

/** Headers named in `Connection` are hop-by-hop too (RFC 9110 7.6.1). */
function connectionTokens(headers: IncomingHttpHeaders): Set<string> {
  const value = headers.connection;
  const tokens = new Set<string>();
  if (!value) return tokens;
  for (const token of value.split(",")) {
    const name = token.trim().toLowerCase();
    if (name) tokens.add(name);
  }
  return tokens;
}

function endToEnd(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = connectionTokens(headers);
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * The request headers for the runtime: end-to-end headers, `X-Forwarded-For` with the client address
 * appended, and `X-Forwarded-Proto`/`-Host`. A proto or host already set by a proxy in front of the wrapper
 * is kept (the platform terminates TLS before us), otherwise they are taken from this connection.
 */
function forwardedHeaders(req: IncomingMessage): OutgoingHttpHeaders {
  const headers = endToEnd(req.headers);
  const client = req.socket.remoteAddress ?? "";
  const prior = req.headers["x-forwarded-for"];
  headers["x-forwarded-for"] = prior ? `${prior}, ${client}` : client;
  if (!req.headers["x-forwarded-proto"]) {
    headers["x-forwarded-proto"] = (req.socket as TLSSocket).encrypted ? "https" : "http";
  }
  if (!req.headers["x-forwarded-host"] && req.headers.host) headers["x-forwarded-host"] = req.headers.host;
  return headers;
}

const UNAVAILABLE = JSON.stringify({ ok: false, error: "runtime unavailable" });

/** Streams HTTP requests and WebSocket upgrades to the runtime gateway on loopback. */
export function createRuntimeProxy({ port, host = "127.0.0.1" }: RuntimeProxyOptions): RuntimeProxy {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 512, maxFreeSockets: 64, scheduling: "lifo" });

  function proxyHttp(req: IncomingMessage, res: ServerResponse): void {
    const upstream = http.request({
      host,
      port,
      method: req.method,
      path: req.url,
      headers: forwardedHeaders(req),
      agent,
    });

    upstream.on("response", (answer) => {
      const status = answer.statusCode ?? 502;
      res.writeHead(status, answer.statusMessage, endToEnd(answer.headers));
      answer.pipe(res);
      answer.on("error", () => res.destroy());
      answer.on("aborted", () => res.destroy());
    });

    upstream.on("error", () => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      res.writeHead(502, {
        "content-type": "application/json; charset=utf-8",
        "content-length": UNAVAILABLE.length,
      });
      res.end(UNAVAILABLE);
    });

    // The client went away before the answer finished: stop the runtime's work too.
    res.on("close", () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.on("error", () => upstream.destroy());
    req.pipe(upstream);
  }

  function proxyUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const upstream = net.connect({ port, host });
    let connected = false;
    const destroyBoth = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on("error", destroyBoth);
    upstream.on("error", () => {
      if (!connected && socket.writable) {
        socket.end(
          `HTTP/1.1 502 Bad Gateway\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${UNAVAILABLE.length}\r\nConnection: close\r\n\r\n${UNAVAILABLE}`,
        );
        return;
      }
      destroyBoth();
    });
    upstream.on("connect", () => {
      connected = true;
      upstream.setNoDelay(true);
      if (socket instanceof net.Socket) socket.setNoDelay(true);
      const headers = forwardedHeaders(req);
      // An upgrade keeps its own hop-by-hop pair.
      headers.connection = "Upgrade";
      if (req.headers.upgrade) headers.upgrade = req.headers.upgrade;
      let requestHead = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
      for (const [name, value] of Object.entries(headers)) {
        if (value === undefined) continue;
        for (const one of Array.isArray(value) ? value : [value]) requestHead += `${name}: ${one}\r\n`;
      }
      upstream.write(`${requestHead}\r\n`);
      if (head.length > 0) upstream.write(head);
      upstream.pipe(socket);
      socket.pipe(upstream);
    });
    upstream.on("close", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
  }

  return { http: proxyHttp, upgrade: proxyUpgrade, close: () => agent.destroy() };
}
