/**
 * The install lock's own rules: a stale lock (dead process, or never written) is taken over, a live one is
 * waited for (and given up on after the timeout), and releasing never deletes a lock that is not ours.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { acquireInstallLock, isPidAlive, type LockHolder } from "./install-lock";

let dir = "";
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "svc-install-lock-"));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The pid of a process that has exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ["-e", ""], { stdio: "ignore" });
  await once(child, "exit");
  return child.pid as number;
}

const holderOf = (pid: number, token: string): LockHolder => ({
  pid,
  hostname: hostname(),
  token,
  startedAt: new Date().toISOString(),
});

describe("acquireInstallLock", () => {
  it("takes over the lock of a process that is gone", async () => {
    const path = join(dir, "dead.lock");
    const pid = await deadPid();
    expect(isPidAlive(pid)).toBe(false);
    await writeFile(path, JSON.stringify(holderOf(pid, "old-token")));
    const stale: Array<LockHolder | null> = [];
    const lock = await acquireInstallLock(path, { pollMs: 10, onStale: (h) => stale.push(h) });
    expect(stale.map((h) => h?.pid)).toEqual([pid]);
    expect(JSON.parse(await readFile(path, "utf8"))).toEqual(lock.holder);
    expect(lock.holder.pid).toBe(process.pid);
    await lock.release();
    await expect(readFile(path)).rejects.toMatchObject({ code: "ENOENT" });
  });

  it("a lock file that never got its content is stale once it is old", async () => {
    const path = join(dir, "half.lock");
    await writeFile(path, "{");
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);
    const stale: Array<LockHolder | null> = [];
    const lock = await acquireInstallLock(path, { pollMs: 10, onStale: (h) => stale.push(h) });
    expect(stale).toEqual([null]);
    await lock.release();
  });

  it("waits for a live holder, says so once, and gives up after the timeout naming it", async () => {
    const path = join(dir, "live.lock");
    await writeFile(path, JSON.stringify(holderOf(process.pid, "someone-else")));
    const waited: number[] = [];
    await expect(
      acquireInstallLock(path, { pollMs: 10, timeoutMs: 100, onWait: (h) => waited.push(h.pid) }),
    ).rejects.toMatchObject({
      reason: "lock_timeout",
      message: expect.stringContaining(
        `another install of the agent runtime (pid ${process.pid}) has held ${path}`,
      ),
    });
    expect(waited).toEqual([process.pid]);
    expect(JSON.parse(await readFile(path, "utf8")).token).toBe("someone-else");
  });

  it("release leaves alone a lock that is no longer ours", async () => {
    const path = join(dir, "replaced.lock");
    const lock = await acquireInstallLock(path);
    await writeFile(path, JSON.stringify(holderOf(process.pid, "the-new-holder")));
    await lock.release();
    expect(JSON.parse(await readFile(path, "utf8")).token).toBe("the-new-holder");
  });
});
