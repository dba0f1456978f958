/**
 * The development runtime's durable state: sessions (with their transcripts, the agent's memory) and cron
 * jobs, kept in memory and written as one JSON file, atomically (temp file + rename, mode 0600).
 */
import { randomBytes } from "node:crypto";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { join } from "node:path";

/** Messages kept per session transcript (older ones are dropped; `messageCount` still counts them). */
export const TRANSCRIPT_LIMIT = 200;

/** Writes `text` to `file` so that a reader sees the old or the new content, never a partial one. */
async function writeFileAtomic(file, text) {
  const temp = `${file}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`;
  const handle = await open(temp, "wx", 0o600);
  try {
    await handle.writeFile(text);
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (err) {
    await unlink(temp).catch(() => {});
    throw err;
  }
}

const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Sessions and cron jobs live in Maps (their keys come from requests, so never as object properties) and
 * are saved as arrays: `{version: 1, sessions: [...], cron: [...]}`.
 */
export class StateStore {
  /** @param {string} dir @param {{error: (msg: string, extra?: object) => void}} log */
  constructor(dir, log) {
    this.dir = dir;
    this.file = join(dir, "state.json");
    this.log = log;
    /** @type {Map<string, {key: string, messageCount: number, createdAt: string, lastActivityAt: string, transcript: Array<{role: string, content: unknown, at: string}>}>} */
    this.sessions = new Map();
    /** @type {Map<string, object>} */
    this.cron = new Map();
    /** Persona evaluation runs, oldest first (see eval.mjs). @type {object[]} */
    this.evals = [];
    this.dirty = false;
    /** @type {Promise<void> | null} */
    this.writing = null;
  }

  /** Reads the state file; a missing one is an empty state, an unreadable one is moved aside and logged. */
  async load() {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    let text;
    try {
      text = await readFile(this.file, "utf8");
    } catch (err) {
      if (err.code === "ENOENT") return;
      throw err;
    }
    let parsed;
    try {
      parsed = JSON.parse(text);
      if (!isObject(parsed) || !Array.isArray(parsed.sessions) || !Array.isArray(parsed.cron)) {
        throw new Error("not a development runtime state");
      }
    } catch (err) {
      const aside = `${this.file}.corrupt-${Date.now()}`;
      await rename(this.file, aside);
      this.log.error("state file unreadable, starting empty", { error: err.message, movedTo: aside });
      return;
    }
    for (const session of parsed.sessions) {
      if (isObject(session) && typeof session.key === "string") {
        this.sessions.set(session.key, {
          key: session.key,
          messageCount: Number(session.messageCount) || 0,
          createdAt: session.createdAt ?? session.lastActivityAt ?? new Date().toISOString(),
          lastActivityAt: session.lastActivityAt ?? null,
          transcript: Array.isArray(session.transcript) ? session.transcript : [],
        });
      }
    }
    if (Array.isArray(parsed.evals)) {
      this.evals = parsed.evals.filter((run) => isObject(run) && typeof run.overallScore === "number");
    }
    for (const job of parsed.cron) {
      if (isObject(job) && typeof job.name === "string") this.cron.set(job.name, job);
    }
  }

  /** The last `limit` transcript messages of a session, as chat messages. */
  history(key, limit) {
    const session = this.sessions.get(key);
    if (!session) return [];
    return session.transcript.slice(-limit).map(({ role, content }) => ({ role, content }));
  }

  /** Appends messages to a session (created on first use) and saves. */
  recordMessages(key, messages, now = new Date()) {
    const at = now.toISOString();
    let session = this.sessions.get(key);
    if (!session) {
      session = { key, messageCount: 0, createdAt: at, lastActivityAt: at, transcript: [] };
      this.sessions.set(key, session);
    }
    for (const { role, content } of messages) session.transcript.push({ role, content, at });
    if (session.transcript.length > TRANSCRIPT_LIMIT) {
      session.transcript.splice(0, session.transcript.length - TRANSCRIPT_LIMIT);
    }
    session.messageCount += messages.length;
    session.lastActivityAt = at;
    this.save();
  }

  /** Appends a persona evaluation run, keeping the newest `limit`, and saves. */
  recordEval(run, limit) {
    this.evals.push(run);
    if (this.evals.length > limit) this.evals.splice(0, this.evals.length - limit);
    this.save();
  }

  /** Forgets every session transcript; returns how many sessions were deleted. */
  resetMemory() {
    const deleted = this.sessions.size;
    this.sessions.clear();
    this.save();
    return deleted;
  }

  /** Schedules a write of the current state; writes never overlap and coalesce while one is running. */
  save() {
    this.dirty = true;
    if (!this.writing) this.writing = this.drain();
    return this.writing;
  }

  async drain() {
    try {
      while (this.dirty) {
        this.dirty = false;
        const snapshot = {
          version: 1,
          sessions: [...this.sessions.values()],
          cron: [...this.cron.values()],
          evals: this.evals,
        };
        await writeFileAtomic(this.file, JSON.stringify(snapshot));
      }
    } catch (err) {
      this.log.error("could not write the state file", { error: err.message });
    } finally {
      this.writing = null;
    }
  }

  /** Waits until everything changed so far is on disk. */
  async flush() {
    if (this.writing) await this.writing;
    if (this.dirty) await this.save();
  }
}
