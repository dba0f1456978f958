/**
 * A PostgreSQL `LISTEN` connection that stays up: its own client (a pooled client cannot hold LISTEN),
 * reconnecting with backoff after an error or a lost connection. Used by the job worker (`platform_jobs`)
 * and the permission bus (`permission_events`). NOTIFYs sent while it reconnects are not replayed: each user
 * re-reads the database after `onReconnect`.
 *
 * Cleanup is strict: a client whose connect or LISTEN failed, one made while `stop` ran, and a broken one are
 * each ended, their `end` listener removed first so that ending them schedules nothing.
 */
import { DATABASE_CONNECTION_TIMEOUT_MS } from "@svc/db";
import pg from "pg";
import type { Logger } from "pino";

export const LISTEN_RETRY_DELAYS_MS = [100, 250, 500, 1_000, 2_000, 5_000];

export interface PgListenerOptions {
  connectionString: string;
  /** The channel to LISTEN on (a plain identifier). */
  channel: string;
  /** Shown in `pg_stat_activity`. */
  applicationName: string;
  logger: Pick<Logger, "warn">;
  /** Called with each notification's payload on the channel. */
  onNotification(payload: string | undefined): void;
  /** Called after a reconnect succeeded (not after the first connect). */
  onReconnect?(): void;
  /** Names the listener in its log lines (default "LISTEN"). */
  name?: string;
}

export interface PgListener {
  /** Connects and LISTENs; a failed first attempt is logged and retried in the background. */
  start(): Promise<void>;
  /** Ends the connection and any pending reconnect. */
  stop(): Promise<void>;
}

export function createPgListener(options: PgListenerOptions): PgListener {
  const { channel, logger } = options;
  const name = options.name ?? "LISTEN";
  let client: pg.Client | undefined;
  let reconnectTimer: NodeJS.Timeout | undefined;
  let reconnectAttempt = 0;
  let started = false;
  let stopped = false;

  async function end(target: pg.Client | undefined): Promise<void> {
    target?.removeAllListeners("end");
    await target?.end().catch(() => undefined);
  }

  async function listen(): Promise<void> {
    const next = new pg.Client({
      connectionString: options.connectionString,
      application_name: options.applicationName,
      connectionTimeoutMillis: DATABASE_CONNECTION_TIMEOUT_MS,
    });
    next.on("notification", (message) => {
      if (message.channel === channel) options.onNotification(message.payload);
    });
    next.on("error", (err) => {
      logger.warn({ err }, `${name} connection failed; reconnecting`);
      scheduleReconnect();
    });
    next.on("end", () => scheduleReconnect());
    try {
      await next.connect();
      await next.query(`listen ${channel}`);
    } catch (err) {
      await end(next);
      throw err;
    }
    if (stopped) {
      await end(next);
      return;
    }
    client = next;
  }

  function scheduleReconnect(): void {
    if (stopped || reconnectTimer) return;
    const stale = client;
    client = undefined;
    void end(stale);
    const delay = LISTEN_RETRY_DELAYS_MS[Math.min(reconnectAttempt++, LISTEN_RETRY_DELAYS_MS.length - 1)];
    reconnectTimer = setTimeout(async () => {
      reconnectTimer = undefined;
      try {
        await listen();
        reconnectAttempt = 0;
        if (!stopped) options.onReconnect?.();
      } catch {
        scheduleReconnect();
      }
    }, delay);
    reconnectTimer.unref();
  }

  return {
    async start() {
      if (started) return;
      started = true;
      try {
        await listen();
      } catch (err) {
        logger.warn({ err }, `${name} could not connect; retrying`);
        scheduleReconnect();
      }
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const current = client;
      client = undefined;
      await end(current);
    },
  };
}
