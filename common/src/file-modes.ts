/**
 * Permissions of the platform's state on a machine it shares with other OS users: as root, local agents
 * run as their own users (backend/src/hosting/local-users.ts), so what is the platform's must be closed to
 * them, and what they run must not be writable by them. Symbolic links are never followed: chmod would
 * change their target, which could be any file.
 */
import { chmod, lstat, mkdir, readdir, readlink, realpath } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";

const GROUP_OTHER = 0o077;
const GROUP_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

/**
 * Makes `dir` (created when missing) its owner's alone: 0700. When it was open to others before (as older
 * versions left uploads, 0755 with 0644 files), everything already in it loses the group and other bits too.
 * Directories made above it keep the usual mode: `.data` must stay enterable by agents' users.
 */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dirname(dir), { recursive: true });
  await mkdir(dir, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== "EEXIST") throw err;
  });
  await removeBits(dir, GROUP_OTHER);
}

/**
 * Takes write permission for group and others away from `dir` and, when it had any (or with `everything`,
 * for a tree just made), from everything in it: what agents run, such as the installed runtimes, is
 * readable and runnable by them, never writable.
 */
export async function ensureNotWritableByOthers(
  dir: string,
  options: { everything?: boolean } = {},
): Promise<void> {
  await removeBits(dir, GROUP_OTHER_WRITE, options.everything);
}

/**
 * Removes `bits` from `path`; when it had some of them, from everything below it too, top-down. `path`
 * itself may be a link the operator made (to another disk, say); nothing below it is followed.
 */
async function removeBits(path: string, bits: number, everything = false): Promise<void> {
  const real = await realpath(path);
  const info = await lstat(real);
  if ((info.mode & bits) === 0 && !everything) return;
  await removeBitsBelow(real, bits);
}

/**
 * A directory is closed before it is read, so nobody else can swap an entry in it for a link between the
 * lstat and the chmod below.
 */
async function removeBitsBelow(path: string, bits: number): Promise<void> {
  const info = await lstat(path);
  if (info.isSymbolicLink()) return;
  if (info.mode & bits) await chmod(path, info.mode & 0o7777 & ~bits);
  if (!info.isDirectory()) return;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    if (!entry.isSymbolicLink()) await removeBitsBelow(join(path, entry.name), bits);
  }
}

/**
 * Whether `path` can be trusted to hold what root runs or keeps: every directory on the way and `path`
 * itself must be owned by root or this process's user, and none may be writable by group or others, except,
 * above `path`, a sticky directory such as /tmp (others may add entries there but cannot rename or remove
 * ours). A symbolic link on the way counts when it is owned by root or this user (nobody else can have made
 * it or change it), and the path it leads to is checked the same way. `real` is where `path` leads: use it
 * from then on. `reason` is null when the path can be trusted.
 */
export async function untrustedReason(path: string): Promise<{ real: string; reason: string | null }> {
  return checkChain(resolve(path), true, 0);
}

const MAX_LINKS = 40;

async function checkChain(
  path: string,
  strictLast: boolean,
  links: number,
): Promise<{ real: string; reason: string | null }> {
  const uid = process.getuid?.() ?? 0;
  const parts = path.split(sep).filter(Boolean);
  let at: string = sep;
  for (let i = -1; i < parts.length; i++) {
    const next = i < 0 ? sep : join(at, parts[i]);
    const last = i === parts.length - 1;
    const info = await lstat(next);
    const fail = (reason: string) => ({ real: next, reason });
    if (info.uid !== 0 && info.uid !== uid)
      return fail(`${next} is owned by uid ${info.uid}, not by root${uid ? ` or uid ${uid}` : ""}`);
    if (info.isSymbolicLink()) {
      if (links >= MAX_LINKS) return fail(`${next}: too many symbolic links`);
      const target = await checkChain(resolve(at, await readlink(next)), strictLast && last, links + 1);
      if (target.reason) return target;
      at = target.real;
      continue;
    }
    const openToWriters = (info.mode & GROUP_OTHER_WRITE) !== 0;
    const sticky = info.isDirectory() && (info.mode & STICKY) !== 0;
    if (openToWriters && ((strictLast && last) || !sticky)) {
      const who = info.mode & 0o002 ? "others" : "its group";
      return fail(
        `${next} is writable by ${who} (mode ${(info.mode & 0o7777).toString(8).padStart(4, "0")})`,
      );
    }
    at = next;
  }
  return { real: at, reason: null };
}
