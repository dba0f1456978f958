/**
 * One install per runtime version at a time, across processes (two tests, two backends, the worker): a lock
 * file created with O_EXCL holding `{pid, hostname, token}`. Others wait until it is gone. A lock whose
 * process is dead (same host, no such pid) is stale: it is moved aside and checked before it is deleted,
 * so a waiter never deletes a lock that someone else has just taken.
 * The install itself stays safe without the lock (unique temporary directories, an atomic rename): the
 * lock is what makes it happen once.
 */
import { randomBytes } from "node:crypto";
import { link, open, readFile, rename, stat, unlink } from "node:fs/promises";
import { hostname } from "node:os";
import { setTimeout as sleep } from "node:timers/promises";
import { RuntimeInstallError } from "./errors";

export interface LockHolder {
  pid: number;
  hostname: string;
  token: string;
  startedAt: string;
}

export interface InstallLock {
  path: string;
  holder: LockHolder;
  release(): Promise<void>;
}

export interface AcquireLockOptions {
  /** Between two looks at a held lock (default 500 ms). */
  pollMs?: number;
  /** How long to wait for another install before giving up (default 20 minutes). */
  timeoutMs?: number;
  /** Called once when the lock is held by another live process, and on each stale lock removed. */
  onWait?: (holder: LockHolder) => void;
  onStale?: (holder: LockHolder | null) => void;
}

/** A lock file that cannot be read as a holder this long after it was made is a writer that died. */
const UNREADABLE_STALE_MS = 10_000;

/** Whether process `pid` exists (EPERM: it does, as another user). */
export function isPidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

async function readHolder(path: string): Promise<LockHolder | null | "gone"> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw err;
  }
  try {
    const value = JSON.parse(text) as Partial<LockHolder>;
    if (typeof value.pid === "number" && typeof value.token === "string") return value as LockHolder;
  } catch {
    // Being written right now, or left half-written: see UNREADABLE_STALE_MS.
  }
  return null;
}

/** Stale: the holder's process is gone (only judged on this host), or it never got its content written. */
async function isStale(path: string, holder: LockHolder | null): Promise<boolean> {
  if (holder) return holder.hostname === hostname() && !isPidAlive(holder.pid);
  const made = await stat(path).then(
    (s) => s.mtimeMs,
    () => null,
  );
  return made !== null && Date.now() - made > UNREADABLE_STALE_MS;
}

/**
 * Removes the stale lock `seen` at `path`: renamed to a name of its own first (atomic), then deleted only
 * if it is still the lock judged stale; a fresh lock taken meanwhile is linked back (never overwriting).
 */
async function breakStale(path: string, seen: LockHolder | null): Promise<void> {
  const aside = `${path}.stale-${randomBytes(6).toString("hex")}`;
  try {
    await rename(path, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return;
    throw err;
  }
  const moved = await readHolder(aside);
  const same = moved === null ? seen === null : moved !== "gone" && moved.token === seen?.token;
  if (!same) await link(aside, path).catch(() => undefined);
  await unlink(aside).catch(() => undefined);
}

/** Takes the lock at `path`, waiting while another live process holds it. */
export async function acquireInstallLock(
  path: string,
  options: AcquireLockOptions = {},
): Promise<InstallLock> {
  const pollMs = options.pollMs ?? 500;
  const timeoutMs = options.timeoutMs ?? 20 * 60_000;
  const holder: LockHolder = {
    pid: process.pid,
    hostname: hostname(),
    token: randomBytes(12).toString("hex"),
    startedAt: new Date().toISOString(),
  };
  const started = Date.now();
  let waitingFor: string | null = null;
  for (;;) {
    try {
      const file = await open(path, "wx", 0o644);
      try {
        await file.writeFile(JSON.stringify(holder));
      } finally {
        await file.close();
      }
      return { path, holder, release: () => releaseInstallLock(path, holder) };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "EEXIST") throw err;
    }
    const current = await readHolder(path);
    if (current === "gone") continue;
    if (await isStale(path, current)) {
      options.onStale?.(current);
      await breakStale(path, current);
      continue;
    }
    if (current && waitingFor !== current.token) {
      waitingFor = current.token;
      options.onWait?.(current);
    }
    if (Date.now() - started > timeoutMs) {
      throw new RuntimeInstallError(
        "lock_timeout",
        `another install of the agent runtime (pid ${current?.pid ?? "unknown"}) has held ${path} for over ${Math.round(timeoutMs / 60_000)} minutes; if no install is running, delete that file`,
      );
    }
    await sleep(pollMs);
  }
}

/** Deletes the lock if it is still ours (a lock broken as stale and retaken by another is left alone). */
async function releaseInstallLock(path: string, holder: LockHolder): Promise<void> {
  const current = await readHolder(path);
  if (current !== "gone" && current?.token === holder.token) await unlink(path).catch(() => undefined);
}
