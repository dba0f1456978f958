/**
 * The agent's sessions and memory, from OpenClaw's RPC (`sessions.list`, `chat.history`, `sessions.delete`)
 * and its workspace files.
 */
import { readdir, rm } from "node:fs/promises";
import { join } from "node:path";
import type { GatewayRpc } from "./rpc";

/** The wrapper's session shape (`GET /api/sessions`), what the platform's gateway status lists. */
export interface AgentSession {
  key: string;
  /** OpenClaw's run status of the session (`running`, `done`, ...), `idle` when it has none. */
  status: string;
  /** User and assistant messages in the transcript (tool calls and results not counted). */
  messageCount: number;
  lastActivityAt: string | null;
}

interface OpenClawSession {
  key?: unknown;
  status?: unknown;
  updatedAt?: unknown;
}

/** Sessions listed at most (newest first): the platform shows ten. */
export const MAX_SESSIONS = 100;
/** Transcript messages read per session to count them. */
const HISTORY_LIMIT = 1000;
const COUNT_CONCURRENCY = 5;

function isoOrNull(ms: unknown): string | null {
  return typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
}

async function countMessages(rpc: GatewayRpc, key: string): Promise<number> {
  const history = await rpc.call<{ messages?: unknown }>("chat.history", {
    sessionKey: key,
    limit: HISTORY_LIMIT,
  });
  if (!Array.isArray(history?.messages)) return 0;
  return history.messages.filter((message) => {
    const role = (message as { role?: unknown } | null)?.role;
    const content = (message as { content?: unknown } | null)?.content;
    if (role === "user") return true;
    if (role !== "assistant") return false;
    // An assistant turn that only calls tools is part of the tool exchange, not a message of the chat.
    return !Array.isArray(content) || content.some((part) => (part as { type?: unknown })?.type === "text");
  }).length;
}

async function openClawSessions(rpc: GatewayRpc): Promise<OpenClawSession[]> {
  const answer = await rpc.call<{ sessions?: unknown }>("sessions.list", {});
  return Array.isArray(answer?.sessions) ? (answer.sessions as OpenClawSession[]) : [];
}

/** The newest sessions (up to MAX_SESSIONS), each with its message count. */
export async function listSessions(rpc: GatewayRpc): Promise<AgentSession[]> {
  const sessions = (await openClawSessions(rpc))
    .filter((session): session is OpenClawSession & { key: string } => typeof session.key === "string")
    .sort((a, b) => Number(b.updatedAt ?? 0) - Number(a.updatedAt ?? 0))
    .slice(0, MAX_SESSIONS);
  const result: AgentSession[] = [];
  for (let at = 0; at < sessions.length; at += COUNT_CONCURRENCY) {
    const batch = sessions.slice(at, at + COUNT_CONCURRENCY);
    const counts = await Promise.all(batch.map((session) => countMessages(rpc, session.key)));
    batch.forEach((session, i) => {
      result.push({
        key: session.key,
        status: typeof session.status === "string" && session.status ? session.status : "idle",
        messageCount: counts[i],
        lastActivityAt: isoOrNull(session.updatedAt),
      });
    });
  }
  return result;
}

/** Deletes the sessions named (and their transcripts). */
export async function deleteSessions(rpc: GatewayRpc, keys: string[]): Promise<void> {
  for (const key of keys) await rpc.call("sessions.delete", { key, deleteTranscript: true });
}

/** OpenClaw's memory files in a workspace (`docs/concepts/memory.md`): long-term, daily notes, dreams. */
const MEMORY_FILES = ["MEMORY.md", "DREAMS.md"];
const MEMORY_DIRS = ["memory"];

export interface MemoryResetResult {
  /** Sessions deleted (with their transcripts). */
  deleted: number;
  /** Memory files and folders removed from the workspace and the state directory. */
  removed: string[];
}

/**
 * Forgets everything the agent remembers: every session with its transcript, the workspace's memory files,
 * and OpenClaw's memory search index (`<stateDir>/memory/`). The agent's persona files stay.
 */
export async function resetMemory(
  rpc: GatewayRpc,
  paths: { workspace: string; stateDir: string },
): Promise<MemoryResetResult> {
  const keys = (await openClawSessions(rpc))
    .map((session) => session.key)
    .filter((key): key is string => typeof key === "string");
  await deleteSessions(rpc, keys);
  const removed: string[] = [];
  const candidates = [
    ...MEMORY_FILES.map((name) => join(paths.workspace, name)),
    ...MEMORY_DIRS.map((name) => join(paths.workspace, name)),
    join(paths.stateDir, "memory"),
  ];
  for (const path of candidates) {
    const existed = await readdir(path).then(
      () => true,
      (error: NodeJS.ErrnoException) => error.code === "ENOTDIR",
    );
    if (!existed) continue;
    await rm(path, { recursive: true, force: true });
    removed.push(path);
  }
  return { deleted: keys.length, removed };
}
