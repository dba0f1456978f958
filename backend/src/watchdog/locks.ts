/**
 * One watcher per agent across backend processes: each process holds, on one dedicated connection, a
 * session-level PostgreSQL advisory lock per agent it watches. When the process dies its session ends and
 * PostgreSQL frees the locks; another process takes them on its next refresh. The locks use the two-key
 * form with the watchdog's own first key, so they never collide with single-key locks elsewhere.
 */
import { DATABASE_CONNECTION_TIMEOUT_MS } from "@svc/db";
import pg from "pg";
import type { Logger } from "pino";

/** First key of every watchdog lock ("WDOG"). */
export const WATCHDOG_LOCK_CLASS = 0x57444f47;

export interface AgentLocks {
  /** Tries to take the lock of each agent; returns those now held by this session. */
  tryLock(agentIds: readonly string[]): Promise<string[]>;
  unlock(agentId: string): Promise<void>;
  /** Whether the session is open (false after the connection was lost: every lock is gone then). */
  readonly connected: boolean;
  close(): Promise<void>;
}

/**
 * Opens the lock session. `onLost` runs once if the connection dies (database restart, the session
 * terminated): the caller must stop watching everything, since the locks went with the session.
 */
export async function openAgentLocks(
  connectionString: string,
  options: { applicationName: string; logger: Logger; onLost: () => void },
): Promise<AgentLocks> {
  const client = new pg.Client({
    connectionString,
    application_name: options.applicationName.slice(0, 63),
    connectionTimeoutMillis: DATABASE_CONNECTION_TIMEOUT_MS,
  });
  let connected = false;
  let closing = false;
  const lost = () => {
    if (!connected) return;
    connected = false;
    if (!closing) {
      options.logger.warn("watchdog lock connection lost; its agents are released");
      options.onLost();
    }
  };
  client.on("error", lost);
  client.on("end", lost);
  await client.connect();
  connected = true;
  return {
    get connected() {
      return connected;
    },
    async tryLock(agentIds) {
      if (agentIds.length === 0) return [];
      const { rows } = await client.query<{ id: string }>(
        "select id from unnest($1::text[]) as candidate(id) where pg_try_advisory_lock($2::int, hashtext(id))",
        [agentIds, WATCHDOG_LOCK_CLASS],
      );
      return rows.map((r) => r.id);
    },
    async unlock(agentId) {
      await client.query("select pg_advisory_unlock($1::int, hashtext($2))", [WATCHDOG_LOCK_CLASS, agentId]);
    },
    async close() {
      closing = true;
      connected = false;
      // Ending the session frees every lock it holds.
      await client.end().catch(() => undefined);
    },
  };
}
