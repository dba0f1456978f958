/**
 * Cross-process fan-out of permission events through PostgreSQL LISTEN/NOTIFY (channel `permission_events`).
 * Local subscribers hear events ONLY through LISTEN, so every backend process, the publishing one included,
 * sees each event exactly once, and the WebSocket sessions and hook long-polls of every process are woken
 * alike. One LISTEN client (`createPgListener`) and a two-connection pool for NOTIFY; events sent while the
 * listener reconnects are not replayed: readers re-read the database.
 */

import { DATABASE_CONNECTION_TIMEOUT_MS } from "@svc/db";
import pg from "pg";
import type { Logger } from "pino";
import { createPgListener } from "../db/listener";

export const PERMISSION_CHANNEL = "permission_events";

/** A NOTIFY payload must stay below 8000 bytes; the command of a request is shortened to fit. */
const MAX_PAYLOAD_BYTES = 7_900;

export type PermissionEvent =
  | {
      type: "permission_request";
      userId: string;
      request: { id: string; command: string; tier: string; reason: string; agentId: string };
    }
  | {
      type: "decision";
      userId: string;
      requestId: string;
      decision: string;
      status: "approved" | "rejected";
      timestamp: number;
    };

export type PermissionListener = (event: PermissionEvent) => void;

export interface PermissionBus {
  /** Connects and LISTENs; resolves once listening (or after logging a failed first attempt, then retries). */
  start(): Promise<void>;
  stop(): Promise<void>;
  publish(event: PermissionEvent): Promise<void>;
  /** Adds a listener; the returned function removes it. */
  subscribe(listener: PermissionListener): () => void;
}

export interface PermissionBusOptions {
  connectionString: string;
  logger: Logger;
}

export function createPermissionBus({ connectionString, logger }: PermissionBusOptions): PermissionBus {
  const listeners = new Set<PermissionListener>();
  let pool: pg.Pool | undefined;
  let stopped = false;

  function deliver(payload: string | undefined): void {
    const event = parseEvent(payload);
    if (!event) {
      logger.warn("ignored a malformed permission event");
      return;
    }
    for (const listener of [...listeners]) {
      try {
        listener(event);
      } catch (err) {
        logger.error({ err }, "permission event listener failed");
      }
    }
  }

  const connection = createPgListener({
    connectionString,
    channel: PERMISSION_CHANNEL,
    applicationName: "svc-permission-bus",
    logger,
    name: "permission bus",
    onNotification: deliver,
  });

  function publisher(): pg.Pool {
    if (!pool) {
      pool = new pg.Pool({
        connectionString,
        max: 2,
        application_name: "svc-permission-publish",
        connectionTimeoutMillis: DATABASE_CONNECTION_TIMEOUT_MS,
      });
      pool.on("error", (err) => logger.warn({ err }, "idle permission publish connection failed"));
    }
    return pool;
  }

  return {
    start: () => connection.start(),
    async stop() {
      if (stopped) return;
      stopped = true;
      await connection.stop();
      await pool?.end().catch(() => undefined);
      listeners.clear();
    },
    async publish(event) {
      if (stopped) throw new Error("the permission bus is stopped");
      await publisher().query("select pg_notify($1, $2)", [PERMISSION_CHANNEL, encodeEvent(event)]);
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}

/** The NOTIFY payload: JSON, with a permission request's command shortened (longest prefix) to fit. */
export function encodeEvent(event: PermissionEvent): string {
  const payload = JSON.stringify(event);
  if (event.type !== "permission_request" || Buffer.byteLength(payload) <= MAX_PAYLOAD_BYTES) return payload;
  const { command } = event.request;
  const withCommand = (length: number) =>
    JSON.stringify({ ...event, request: { ...event.request, command: `${command.slice(0, length)}…` } });
  // Binary search for the longest prefix that fits (escaping makes bytes per character vary).
  let fits = 0;
  let tooLong = command.length;
  while (tooLong - fits > 1) {
    const middle = Math.floor((fits + tooLong) / 2);
    if (Buffer.byteLength(withCommand(middle)) <= MAX_PAYLOAD_BYTES) fits = middle;
    else tooLong = middle;
  }
  return withCommand(fits);
}

function parseEvent(payload: string | undefined): PermissionEvent | null {
  if (!payload) return null;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const event = value as Record<string, unknown>;
  if (typeof event.userId !== "string") return null;
  if (event.type === "decision" && typeof event.requestId === "string") return value as PermissionEvent;
  if (event.type === "permission_request" && typeof event.request === "object" && event.request !== null)
    return value as PermissionEvent;
  return null;
}
