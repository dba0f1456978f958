/**
 * The local driver's isolation when the platform runs as root: each agent runs as its own unprivileged
 * system user, `svc-agent-<12 hex>` (created on demand with useradd, in no group but its own), so it cannot
 * read the platform's secrets, another agent's files, or the platform's `/proc/<pid>/environ`.
 * A user is kept when its agent is removed: its uid never passes to another agent, so whatever it left
 * behind (in /tmp, say) never becomes readable by someone else.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { constants } from "node:fs";
import { access, lchown, lstat, readdir, realpath, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { HostingError } from "./types";

const run = promisify(execFile);
const USERADD = "/usr/sbin/useradd";
const GETENT = "/usr/bin/getent";
const USER_NAME = /^svc-agent-[0-9a-f]{12}$/;

export interface AgentUser {
  name: string;
  uid: number;
  gid: number;
}

/**
 * The agent's user name, from its id (agent ids are unique to the platform, and tests reuse theirs, so runs
 * do not pile up users). The driver records it in service.json at the first start.
 */
export function agentUserName(agentId: string): string {
  return `svc-agent-${createHash("sha256").update(agentId).digest("hex").slice(0, 12)}`;
}

async function lookupUser(name: string): Promise<AgentUser | null> {
  try {
    const { stdout } = await run(GETENT, ["passwd", name]);
    const fields = stdout.trim().split(":");
    return { name, uid: Number(fields[2]), gid: Number(fields[3]) };
  } catch (err) {
    // getent's exit code 2: no such user.
    if ((err as { code?: unknown }).code === 2) return null;
    throw new HostingError("platform", `could not look up the OS user ${name}: ${(err as Error).message}`);
  }
}

/** One useradd at a time from this process (concurrent ones would wait on each other's passwd lock). */
let creating: Promise<unknown> = Promise.resolve();

/** The agent's OS user, created when missing. Never answers a privileged user. */
export function ensureAgentUser(name: string): Promise<AgentUser> {
  if (!USER_NAME.test(name))
    return Promise.reject(new HostingError("platform", `not an agent user name: ${name}`));
  const result = creating.then(async () => {
    let user = await lookupUser(name);
    if (!user) {
      await run(USERADD, [
        "--system",
        "--user-group",
        "--no-create-home",
        "--home-dir",
        "/nonexistent",
        "--shell",
        "/usr/sbin/nologin",
        "--comment",
        "agent platform local agent",
        name,
      ]).catch((err: { code?: unknown; stderr?: string; message: string }) => {
        // Exit code 9: another process created it meanwhile.
        if (err.code !== 9)
          throw new HostingError(
            "platform",
            `could not create the OS user ${name}: ${(err.stderr || err.message).trim()}`,
          );
      });
      user = await lookupUser(name);
    }
    if (!user) throw new HostingError("platform", `the OS user ${name} was not created`);
    if (user.uid === 0 || user.gid === 0 || !Number.isInteger(user.uid) || !Number.isInteger(user.gid))
      throw new HostingError("platform", `the OS user ${name} is privileged (uid ${user.uid}); refusing it`);
    return user;
  });
  creating = result.catch(() => undefined);
  return result;
}

/** Why agents' users could not be created here (useradd or getent missing), or null. */
export async function missingUserTools(): Promise<string | null> {
  for (const tool of [USERADD, GETENT]) {
    const found = await access(tool, constants.X_OK).then(
      () => true,
      () => false,
    );
    if (!found) return `${tool} is not installed`;
  }
  return null;
}

/**
 * What keeps users other than the owner (an agent's user) from reaching `path`: the first directory on
 * the way that others cannot enter, or the file itself when it lacks `fileBits` for others (default: read);
 * null when nothing does. Agents' users belong to no group but their own, so only the bits for others count.
 */
export async function closedToOthers(path: string, fileBits = 0o004): Promise<string | null> {
  const real = await realpath(path);
  const info = await stat(real);
  const dirs: string[] = [];
  for (let dir = info.isDirectory() ? real : dirname(real); ; dir = dirname(dir)) {
    dirs.unshift(dir);
    if (dirname(dir) === dir) break;
  }
  for (const dir of dirs) if (((await stat(dir)).mode & 0o001) === 0) return dir;
  if (!info.isDirectory() && (info.mode & fileBits) !== fileBits) return real;
  return null;
}

/**
 * Hands an agent's directory tree over to its user (an agent that ran as the platform's user before):
 * never through a symbolic link, and never a file with other hard links (it could be the platform's own).
 */
export async function handOverTree(dir: string, user: AgentUser): Promise<void> {
  const info = await lstat(dir);
  if (!info.isDirectory()) throw new HostingError("platform", `${dir} is not a directory`);
  await lchown(dir, user.uid, user.gid);
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) await handOverTree(path, user);
    else if (!entry.isSymbolicLink() && (await lstat(path)).nlink === 1)
      await lchown(path, user.uid, user.gid);
  }
}
