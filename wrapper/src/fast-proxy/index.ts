/**
 * The fast path of the wrapper's proxy: the runtime's plain HTTP requests are relayed between the client's
 * socket and a keep-alive connection to the runtime without Node's HTTP server objects or undici, which cost
 * the proxy more than twice what a raw TCP relay costs per request (bench/RESULTS.md). It reads only each
 * request's head and the answer's head and framing, and writes the bytes the slow path (`../proxy.ts` behind
 * Node's server) writes. The first request it does not take exactly (the wrapper's own routes, upgrades,
 * chunked uploads, anything unusual, debug logging) hands the connection, with the bytes read, to Node's
 * server for good.
 */
import type { Server } from "node:http";
import type net from "node:net";
import { FastConnection, type FastServer } from "./connection";
import { keepAliveFields } from "./http1";

export interface FastPathOptions {
  /** The runtime on loopback. */
  port: number;
  host?: string;
  /** Whether a request target (path and query, as sent) is the runtime's. */
  forRuntime(target: string): boolean;
}

/** Node's (undocumented) switch for half-open client connections, off by default. */
type HalfOpenServer = Server & { httpAllowHalfOpen?: boolean };

/** undici's headers and body timeouts, which the slow path's pool keeps at their defaults. */
const RUNTIME_TIMEOUT_MS = 300_000;
/** How often the server's timeouts are checked (Node checks its own request timeouts every 30 s). */
const SWEEP_MS = 1_000;

/** Puts the fast path in front of `server`'s own connection handling (call once, before it listens). */
export function serveRuntimeFastPath(server: Server, options: FastPathOptions): void {
  // http.Server registers its connection listener in its constructor: the first one.
  const nodeListener = server.listeners("connection")[0] as (this: Server, socket: net.Socket) => void;
  server.off("connection", nodeListener);
  const connections = new Set<FastConnection>();
  let sweeper: NodeJS.Timeout | null = null;
  let keepAliveTimeout = -1;
  let keepAliveLine = "";

  const fast: FastServer & { now: number } = {
    now: Date.now(),
    port: options.port,
    host: options.host ?? "127.0.0.1",
    forRuntime: options.forRuntime,
    keepAliveLine() {
      if (server.keepAliveTimeout !== keepAliveTimeout) {
        keepAliveTimeout = server.keepAliveTimeout;
        keepAliveLine = keepAliveFields(keepAliveTimeout);
      }
      return keepAliveLine;
    },
    handOff(socket, unread) {
      let bytes = unread;
      const paused = socket.isPaused();
      // Bytes that arrived while the fast path held the socket paused are Node's too, after `unread`.
      if (paused)
        for (let chunk = socket.read(); chunk !== null; chunk = socket.read())
          bytes = bytes === null ? chunk : Buffer.concat([bytes, chunk]);
      nodeListener.call(server, socket);
      // Node's parser reads the socket from now on; what was read before goes to it first, at once.
      if (bytes !== null && bytes.length > 0) socket.emit("data", bytes);
      if (paused) socket.resume();
    },
    forget(connection) {
      connections.delete(connection);
      if (connections.size === 0 && sweeper !== null) {
        clearInterval(sweeper);
        sweeper = null;
      }
    },
  };

  // Node's timeouts, for the connections it does not see: the first request's head (408), a request body
  // (408), keep-alive idleness (closed); and undici's, for the runtime's answer (502, or closed once started).
  const sweep = () => {
    const now = Date.now();
    fast.now = now;
    for (const connection of connections) {
      if (
        connection.receiving &&
        server.requestTimeout > 0 &&
        now - connection.requestStarted > server.requestTimeout
      )
        connection.timeOut();
      else if (connection.waitingForRuntime && now - connection.upstreamActive > RUNTIME_TIMEOUT_MS)
        connection.runtimeTimedOut();
      else if (connection.busy) continue;
      else if (connection.requests === 0) {
        if (server.headersTimeout > 0 && now - connection.lastActive > server.headersTimeout)
          connection.timeOut();
      } else if (server.keepAliveTimeout > 0 && now - connection.lastActive > server.keepAliveTimeout)
        connection.destroy();
    }
  };

  server.on("connection", (socket: net.Socket) => {
    // Server settings the fast path does not carry out leave every connection to Node.
    if (server.timeout || server.maxRequestsPerSocket || (server as HalfOpenServer).httpAllowHalfOpen) {
      nodeListener.call(server, socket);
      return;
    }
    if (sweeper === null) {
      fast.now = Date.now();
      sweeper = setInterval(sweep, SWEEP_MS).unref();
    }
    connections.add(new FastConnection(socket, fast));
  });

  // Closing the server closes idle connections, the fast path's among them.
  const closeIdle = server.closeIdleConnections;
  server.closeIdleConnections = function (this: Server) {
    closeIdle.call(this);
    for (const connection of connections) if (!connection.busy) connection.destroy();
  };
  const closeAll = server.closeAllConnections;
  server.closeAllConnections = function (this: Server) {
    closeAll.call(this);
    for (const connection of connections) connection.destroy();
  };
}
