import type { IncomingHttpHeaders, IncomingMessage, OutgoingHttpHeaders, ServerResponse } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { type Dispatcher, Pool } from "undici";

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
  // undici's pool does the runtime leg: noticeably cheaper per request than node:http's client.
  const pool = new Pool(`http://${host}:${port}`, { connections: 256, keepAliveTimeout: 30_000 });

  function proxyHttp(req: IncomingMessage, res: ServerResponse): void {
    const length = req.headers["content-length"];
    const hasBody =
      req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
    const abort = new AbortController();
    // The client went away before the answer finished: stop the runtime's work too.
    res.on("close", () => {
      if (!res.writableFinished) abort.abort();
    });
    req.on("error", () => abort.abort());
    pool.stream(
      {
        path: req.url ?? "/",
        method: (req.method ?? "GET") as Dispatcher.HttpMethod,
        headers: forwardedHeaders(req) as Record<string, string | string[]>,
        body: hasBody ? req : null,
        signal: abort.signal,
      },
      ({ statusCode, headers }) => {
        res.writeHead(statusCode, endToEnd(headers as IncomingHttpHeaders));
        return res;
      },
      (err) => {
        if (!err) return;
        if (res.headersSent) {
          res.destroy();
          return;
        }
        res.writeHead(502, {
          "content-type": "application/json; charset=utf-8",
          "content-length": UNAVAILABLE.length,
        });
        res.end(UNAVAILABLE);
      },
    );
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

  return { http: proxyHttp, upgrade: proxyUpgrade, close: () => void pool.close() };
}
