/**
 * The permission WebSocket, `ws://HOST/ws/permissions?userId=<id>`. The socket proves it is `userId` by a
 * ticket (`&token=`, from the web's `GET /api/permissions/ws-ticket`) or the web's `svc-session` cookie
 * (refused when a browser's `Origin` is not `PUBLIC_URL`'s, so another site's page cannot ride on it); 4001
 * without `userId`, 4003 without a valid proof of that user. Frames are `{type, ...data}`, times in Unix ms;
 * of a user's decision, the deciding socket gets exactly one `decision_ack` (its answer), the others learn of
 * it too. Each process subscribes to the permission bus (LISTEN/NOTIFY) once and fans events out to its own
 * sockets of the event's user, so a request made on any process reaches every socket of that user and no
 * other's. A socket lives as long as the session that proved it (checked at each decision and heartbeat).
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import {
  type Clock,
  cookieFromHeader,
  isHttpError,
  isPublicOrigin,
  SESSION_COOKIE,
  systemClock,
  verifyPermissionTicket,
} from "@svc/common";
import { findSession, isSessionLive } from "@svc/common/credentials";
import type { Database } from "@svc/db";
import type { Logger } from "pino";
import { type RawData, WebSocket, WebSocketServer } from "ws";
import { z } from "zod";
import { userContextSecret } from "../auth/user-context";
import type { BackendConfig } from "../config";
import type { PermissionBus, PermissionEvent } from "./bus";
import { decideAndPublish, type PermissionPolicyConfig, permissionPolicy } from "./service";

export const PERMISSION_SOCKET_PATH = "/ws/permissions";
export const HEARTBEAT_INTERVAL_MS = 30_000;
export const CLOSE_USER_ID_REQUIRED = 4001;
export const CLOSE_FORBIDDEN = 4003;
/** Largest client message; a bigger one closes the socket (1009). */
const MAX_MESSAGE_BYTES = 16 * 1024;
/** A client that lets this much pile up unread is dropped rather than buffered without end. */
const MAX_BUFFERED_BYTES = 1024 * 1024;
const MISSED_PONGS_BEFORE_DROP = 2;
/** Decisions of one socket remembered to skip their bus echo. */
const MAX_TRACKED_DECISIONS = 1_000;

export interface PermissionSocketDeps {
  db: Database;
  bus: PermissionBus;
  /** PUBLIC_URL: the only `Origin` the cookie path accepts (none configured: no browser origin is). */
  config: Pick<BackendConfig, "HMAC_SECRET" | "INTERNAL_API_KEY"> &
    Partial<Pick<BackendConfig, "PUBLIC_URL">> &
    PermissionPolicyConfig;
  logger: Logger;
  /** Ticket and session expiry, frame timestamps (default: the system clock). */
  clock?: Clock;
  /** Heartbeat period (default 30 s); each also sends a protocol ping, and two missed pongs drop the socket. */
  heartbeatIntervalMs?: number;
}

/** The server's `upgrade` listener for `/ws/permissions`, plus `close()` for shutdown. */
export type PermissionSocketUpgrade = ((req: IncomingMessage, socket: Duplex, head: Buffer) => boolean) & {
  /** Unsubscribes from the bus and closes every socket (1001). */
  close(): void;
  /** Open sockets of this process (all users). */
  socketCount(): number;
};

interface Client {
  ws: WebSocket;
  userId: string;
  /** The session that proved the socket (its ticket's, or its cookie's): the socket ends with it. */
  sessionId: string;
  missedPongs: number;
  /**
   * This socket's own decisions: `waiting` while decideAndPublish runs, `answered` once its ack was sent.
   * The bus echo of an `answered` decision is skipped; an echo that beats the answer becomes the answer.
   */
  ownDecisions: Map<string, "waiting" | "answered">;
}

const decisionMessage = z.object({
  requestId: z
    .string({
      error: (i) => (i.input === undefined ? "requestId is required" : "requestId must be a string"),
    })
    .min(1, "requestId is required")
    .max(200, "requestId is too long"),
  decision: z.enum(["approve", "reject", "approve_always"], {
    error: (i) =>
      i.input === undefined ? "decision is required" : "decision must be approve, reject or approve_always",
  }),
});

/** Builds the upgrade listener; it subscribes to the bus at once (one subscription per process). */
export function permissionSocketUpgrade(deps: PermissionSocketDeps): PermissionSocketUpgrade {
  const { db, bus, config, logger } = deps;
  const clock = deps.clock ?? systemClock;
  const heartbeatMs = deps.heartbeatIntervalMs ?? HEARTBEAT_INTERVAL_MS;
  const server = new WebSocketServer({
    noServer: true,
    clientTracking: false,
    maxPayload: MAX_MESSAGE_BYTES,
  });
  const clients = new Map<string, Set<Client>>();
  const now = () => clock.now().getTime();
  // Decisions expire requests by the system clock, as the REST route does (the clock above is the socket's).
  const policy = permissionPolicy(config);

  const send = (client: Client, frame: Record<string, unknown>) => {
    if (client.ws.readyState !== WebSocket.OPEN) return;
    if (client.ws.bufferedAmount > MAX_BUFFERED_BYTES) {
      client.ws.terminate();
      return;
    }
    client.ws.send(JSON.stringify(frame));
  };

  const unsubscribe = bus.subscribe((event: PermissionEvent) => {
    const own = clients.get(event.userId);
    if (!own) return;
    if (event.type === "permission_request") {
      const { id, command, tier, reason, agentId } = event.request;
      for (const client of own)
        send(client, { type: "permission_request", id, command, tier, reason, agentId });
      return;
    }
    if (event.type === "decision") {
      const ack = {
        type: "decision_ack",
        requestId: event.requestId,
        decision: event.decision,
        timestamp: event.timestamp,
      };
      for (const client of own) {
        const mine = client.ownDecisions.get(event.requestId);
        if (mine === "answered") client.ownDecisions.delete(event.requestId);
        else {
          if (mine === "waiting") client.ownDecisions.set(event.requestId, "answered");
          send(client, ack);
        }
      }
    }
  });

  const decide = async (client: Client, message: Record<string, unknown>) => {
    const parsed = decisionMessage.safeParse(message);
    if (!parsed.success) {
      const named = typeof message.requestId === "string" ? message.requestId.slice(0, 200) : undefined;
      const reason = parsed.error.issues[0]?.message ?? "invalid decision";
      send(client, { type: "error", message: reason, requestId: named });
      return;
    }
    const { requestId, decision } = parsed.data;
    if (!(await sessionHolds(client))) return;
    const own = client.ownDecisions;
    if (own.get(requestId) === "waiting") {
      send(client, {
        type: "error",
        message: "a decision for this request is already in progress",
        requestId,
      });
      return;
    }
    // Echoes that never came (a lost NOTIFY) must not pile up on a long-lived socket.
    if (own.size >= MAX_TRACKED_DECISIONS) own.delete(own.keys().next().value as string);
    own.set(requestId, "waiting");
    try {
      await decideAndPublish({ db, bus, logger, policy }, { userId: client.userId, requestId, decision });
    } catch (err) {
      own.delete(requestId);
      if (isHttpError(err) && err.status < 500) {
        send(client, { type: "error", message: err.message, requestId });
      } else {
        logger.error({ err, userId: client.userId }, "permission decision over the WebSocket failed");
        send(client, { type: "error", message: "the decision could not be recorded", requestId });
      }
      return;
    }
    if (own.get(requestId) === "answered") {
      // The bus delivered the decision first, and that was sent as this socket's answer.
      own.delete(requestId);
      return;
    }
    own.set(requestId, "answered");
    send(client, { type: "decision_ack", requestId, decision, timestamp: now() });
  };

  const onMessage = (client: Client, data: RawData) => {
    let message: unknown;
    try {
      message = JSON.parse(rawText(data));
    } catch {
      send(client, { type: "error", message: "message is not valid JSON" });
      return;
    }
    if (typeof message !== "object" || message === null || Array.isArray(message)) {
      send(client, { type: "error", message: "message must be a JSON object with a type" });
      return;
    }
    const { type } = message as { type?: unknown };
    if (type === "ping") send(client, { type: "pong", timestamp: now() });
    else if (type === "decision") void decide(client, message as Record<string, unknown>);
    else if (typeof type === "string") {
      send(client, { type: "error", message: `unknown message type: ${type.slice(0, 64)}` });
    } else send(client, { type: "error", message: "message must be a JSON object with a type" });
  };

  /**
   * Whether the socket's session still exists; when it has ended (sign-out, a security event, an account
   * claim) the socket is closed with 4003, so what it proved no longer opens anything.
   */
  const sessionHolds = async (client: Client): Promise<boolean> => {
    let live: boolean;
    try {
      live = await isSessionLive(db, client.sessionId, client.userId, clock.now());
    } catch (err) {
      // Unknown for now (the database is unreachable): nothing is decided without it, the socket stays.
      logger.error({ err, userId: client.userId }, "permission socket could not check its session");
      return false;
    }
    if (!live) client.ws.close(CLOSE_FORBIDDEN, "the session of this socket has ended");
    return live;
  };

  const open = (ws: WebSocket, userId: string, sessionId: string) => {
    const client: Client = { ws, userId, sessionId, missedPongs: 0, ownDecisions: new Map() };
    let own = clients.get(userId);
    if (!own) {
      own = new Set();
      clients.set(userId, own);
    }
    own.add(client);
    const heartbeat = setInterval(() => {
      if (client.missedPongs >= MISSED_PONGS_BEFORE_DROP) {
        ws.terminate();
        return;
      }
      client.missedPongs += 1;
      ws.ping();
      send(client, { type: "heartbeat", timestamp: now() });
      void sessionHolds(client);
    }, heartbeatMs);
    heartbeat.unref();
    ws.on("pong", () => {
      client.missedPongs = 0;
    });
    ws.on("message", (data) => onMessage(client, data));
    ws.on("error", () => ws.terminate());
    ws.on("close", () => {
      clearInterval(heartbeat);
      const set = clients.get(userId);
      set?.delete(client);
      if (set?.size === 0) clients.delete(userId);
    });
    send(client, { type: "connected", userId, timestamp: now() });
  };

  /** Completes the WebSocket handshake, then hands the socket on. */
  const accept = (req: IncomingMessage, socket: Duplex, head: Buffer, then: (ws: WebSocket) => void) => {
    server.handleUpgrade(req, socket, head, then);
  };

  /**
   * The session that proves the request is `userId`: a valid ticket for it whose session is live, else a
   * live session cookie of it; null when nothing does.
   */
  const proves = async (req: IncomingMessage, url: URL, userId: string): Promise<string | null> => {
    const token = url.searchParams.get("token");
    const secret = userContextSecret(config);
    if (token && secret) {
      const ticket = verifyPermissionTicket(secret, token, now());
      if (
        ticket.ok &&
        ticket.userId === userId &&
        (await isSessionLive(db, ticket.sessionId, userId, clock.now()))
      ) {
        return ticket.sessionId;
      }
    }
    const sessionToken = cookieFromHeader(req.headers.cookie, SESSION_COOKIE);
    if (!sessionToken) return null;
    const origin = req.headers.origin;
    if (origin !== undefined && !(config.PUBLIC_URL && isPublicOrigin(origin, config.PUBLIC_URL)))
      return null;
    const session = await findSession(db, sessionToken, clock.now());
    return session?.user.id === userId ? session.sessionId : null;
  };

  const handler = (req: IncomingMessage, socket: Duplex, head: Buffer): boolean => {
    const url = new URL(req.url ?? "/", "http://localhost");
    if (url.pathname !== PERMISSION_SOCKET_PATH && url.pathname !== `${PERMISSION_SOCKET_PATH}/`)
      return false;
    socket.on("error", () => socket.destroy());
    const userId = url.searchParams.get("userId");
    if (!userId) {
      accept(req, socket, head, (ws) => ws.close(CLOSE_USER_ID_REQUIRED, "userId is required"));
      return true;
    }
    proves(req, url, userId)
      .then((sessionId) =>
        accept(req, socket, head, (ws) => {
          if (sessionId) open(ws, userId, sessionId);
          else ws.close(CLOSE_FORBIDDEN, "no valid session or ticket for this userId");
        }),
      )
      .catch((err: unknown) => {
        logger.error({ err }, "permission socket authentication failed");
        accept(req, socket, head, (ws) => ws.close(1011, "internal error"));
      });
    return true;
  };

  return Object.assign(handler, {
    close() {
      unsubscribe();
      for (const own of clients.values()) {
        for (const client of own) client.ws.close(1001, "server shutting down");
      }
      server.close();
    },
    socketCount() {
      let count = 0;
      for (const own of clients.values()) count += own.size;
      return count;
    },
  });
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8");
  if (Buffer.isBuffer(data)) return data.toString("utf8");
  return Buffer.from(data).toString("utf8");
}
