import type { IncomingMessage, ServerResponse } from "node:http";
import net from "node:net";
import type { Duplex } from "node:stream";
import type { TLSSocket } from "node:tls";
import { connectionTokens, endToEndHeaders, HOP_BY_HOP_HEADERS, relayUpgrade } from "@svc/common";
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

/**
 * Request headers a client could use to pose as someone else to the runtime: every forwarding header is the
 * wrapper's own statement about this connection, never the client's (RFC 7239 `Forwarded` and
 * `X-Real-IP` included, so the runtime cannot fall back on a spoofed one).
 */
const FORWARDING = [
  "x-forwarded-for",
  "x-forwarded-proto",
  "x-forwarded-host",
  "x-forwarded-port",
  "x-real-ip",
  "forwarded",
];
/** Dropped from a request on its way to the runtime: one set, so the hot path does one lookup per header. */
export const NOT_FORWARDED: ReadonlySet<string> = new Set([...HOP_BY_HOP_HEADERS, ...FORWARDING]);

/**
 * The request headers for the runtime, as a flat `[name, value, …]` list built straight from the raw
 * headers (no header object is built on the hot path): end-to-end headers, then `X-Forwarded-For`,
 * `-Proto` and `-Host` as the wrapper sees this connection (socket address, TLS or not, `Host`). Whatever
 * the client sent under those names is dropped.
 */
function forwardedHeaders(req: IncomingMessage): string[] {
  const raw = req.rawHeaders;
  let named: Set<string> | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i].length !== 10 || raw[i].toLowerCase() !== "connection") continue;
    named ??= new Set();
    for (const token of connectionTokens(raw[i + 1]) ?? []) named.add(token);
  }
  const out: string[] = [];
  let host: string | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i].toLowerCase();
    if (NOT_FORWARDED.has(name) || named?.has(name)) continue;
    const value = raw[i + 1];
    if (name === "host") host = value;
    out.push(name, value);
  }
  out.push(
    "x-forwarded-for",
    req.socket.remoteAddress ?? "",
    "x-forwarded-proto",
    (req.socket as TLSSocket).encrypted ? "https" : "http",
  );
  if (host !== null) out.push("x-forwarded-host", host);
  return out;
}

/** The body of the 502 when the runtime cannot be reached. */
export const UNAVAILABLE = JSON.stringify({ ok: false, error: "runtime unavailable" });

class ClientGone extends Error {
  constructor() {
    super("the client closed the connection");
  }
}

/** Streams HTTP requests and WebSocket upgrades to the runtime gateway on loopback. */
export function createRuntimeProxy({ port, host = "127.0.0.1" }: RuntimeProxyOptions): RuntimeProxy {
  // undici's pool does the runtime leg, through its low-level dispatch API: no promise, stream or
  // AbortSignal per request (each of those showed up in the profile of the proxy at load).
  const pool = new Pool(`http://${host}:${port}`, { connections: 256, keepAliveTimeout: 30_000 });

  function proxyHttp(req: IncomingMessage, res: ServerResponse): void {
    const length = req.headers["content-length"];
    const hasBody =
      req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
    let controller: Dispatcher.DispatchController | null = null;
    // The client went away before the answer finished: stop the runtime's work too.
    res.once("close", () => {
      if (!res.writableFinished) controller?.abort(new ClientGone());
    });
    const resume = () => controller?.resume();
    pool.dispatch(
      {
        path: req.url ?? "/",
        method: (req.method ?? "GET") as Dispatcher.HttpMethod,
        headers: forwardedHeaders(req),
        body: hasBody ? req : null,
      },
      {
        onRequestStart(c) {
          controller = c;
          if (res.destroyed) c.abort(new ClientGone());
        },
        onResponseStart(_c, statusCode, headers, statusMessage) {
          res.writeHead(statusCode, statusMessage ?? "", endToEndHeaders(headers));
        },
        onResponseData(c, chunk) {
          // Backpressure: a slow client pauses the runtime's answer instead of buffering it here.
          if (!res.write(chunk)) {
            c.pause();
            res.once("drain", resume);
          }
        },
        onResponseEnd() {
          res.end();
        },
        onResponseError(_c, err) {
          if (err instanceof ClientGone) return;
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
      headers.push("connection", "Upgrade");
      if (req.headers.upgrade) headers.push("upgrade", req.headers.upgrade);
      let requestHead = `${req.method} ${req.url} HTTP/${req.httpVersion}\r\n`;
      for (let i = 0; i < headers.length; i += 2) requestHead += `${headers[i]}: ${headers[i + 1]}\r\n`;
      relayUpgrade(upstream, socket, requestHead, head);
    });
    upstream.on("close", () => socket.destroy());
    socket.on("close", () => upstream.destroy());
  }

  return { http: proxyHttp, upgrade: proxyUpgrade, close: () => void pool.close() };
}
