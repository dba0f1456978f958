/**
 * Path checks shared by the shell rules and the tool rules: sensitive files (`.env`, `credentials`, `.ssh`),
 * raw disk devices, writes that target the filesystem root, and the "root-like" targets of a recursive delete.
 * Paths are normalized first: backslashes, `.` and `..` segments, `~`/`$HOME`, and case (case-insensitive
 * file systems make `/ETC` and `.SSH` the same files).
 */

interface NormalizedPath {
  absolute: boolean;
  /** Starts at the home directory (`~`, `~user`, `$HOME`). */
  home: boolean;
  segments: string[];
  /** Leading `..` segments left over in a relative path (it climbs out of the working directory). */
  climbs: number;
}

export function normalizePath(raw: string): NormalizedPath {
  const text = raw.replaceAll("\\", "/").toLowerCase();
  const parts = text.split("/");
  let absolute = false;
  let home = false;
  let start = 0;
  if (parts[0] === "") {
    absolute = true;
    start = 1;
  } else if (parts[0].startsWith("~") || parts[0] === "$home") {
    home = true;
    start = 1;
  }
  const segments: string[] = [];
  let climbs = 0;
  for (let i = start; i < parts.length; i++) {
    // Trailing dots and spaces are dropped by some file systems (`.env.` opens `.env` on Windows).
    const part = parts[i].replace(TRAILING_DOTS_SPACES, "");
    const original = parts[i];
    if (original === "" || original === ".") continue;
    if (original === "..") {
      if (segments.length > 0) segments.pop();
      else if (!absolute && !home) climbs++;
      continue;
    }
    segments.push(part === "" ? original : part);
  }
  return { absolute, home, segments, climbs };
}

const TRAILING_DOTS_SPACES = /[. ]+$/;

/** `.env` (and `.env.*`, `.envrc`), anything named `credentials`, anything under `.ssh`. */
export function isSensitivePath(raw: string): boolean {
  for (const segment of normalizePath(raw).segments) {
    if (segment === ".env" || segment === ".envrc" || segment.startsWith(".env.")) return true;
    if (segment === ".ssh" || segment.includes("credentials")) return true;
  }
  return false;
}

const RAW_DISK =
  /^\/dev\/(?:[shv]d[a-z]|xvd[a-z]|nvme\d|mmcblk\d|r?disk\d|md\d|dm-\d|loop\d|nbd\d|zd\d|sr\d|mapper\/|disk\/|root$)/;

/** A block device: writing to it overwrites a disk or partition. */
export function isRawDisk(raw: string): boolean {
  const path = normalizePath(raw);
  if (!path.absolute) return false;
  return RAW_DISK.test(`/${path.segments.join("/")}`);
}

const HARMLESS_DEVICES = new Set([
  "null",
  "zero",
  "full",
  "random",
  "urandom",
  "stdout",
  "stderr",
  "stdin",
  "tty",
]);
const HARMLESS_DEVICE_DIRS = new Set(["fd", "pts", "shm"]);

const SYSTEM_DIRS = new Set([
  "etc",
  "usr",
  "bin",
  "sbin",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "boot",
  "sys",
  "proc",
  "dev",
  "var",
  "opt",
  "root",
  "srv",
  "snap",
  "run",
  "system",
  "library",
  "private",
  "applications",
]);
/** Directories climbed into through `../../..`: only the unmistakable system ones. */
const CLIMBED_SYSTEM_DIRS = new Set([
  "etc",
  "usr",
  "bin",
  "sbin",
  "boot",
  "root",
  "var",
  "dev",
  "sys",
  "proc",
]);
const TEMPORARY = ["var/tmp", "private/tmp", "private/var/folders", "var/folders"];

/**
 * A write "that targets the filesystem root": `/` itself, an entry directly under `/` (other than `/tmp`),
 * or anything under a system directory (`/etc`, `/usr`, `/boot`, `/var`, …; harmless devices such as
 * `/dev/null` and temporary directories excepted).
 */
export function isRootWriteTarget(raw: string): boolean {
  const path = normalizePath(raw);
  const { segments } = path;
  if (!path.absolute) {
    return path.climbs >= 3 && segments.length > 0 && CLIMBED_SYSTEM_DIRS.has(segments[0]);
  }
  if (segments.length === 0) return true;
  const first = segments[0];
  if (first === "tmp") return false;
  if (first === "dev") {
    if (segments.length === 2 && HARMLESS_DEVICES.has(segments[1])) return false;
    if (segments.length >= 2 && HARMLESS_DEVICE_DIRS.has(segments[1])) return false;
    return true;
  }
  if (segments.length === 1) return true;
  if (!SYSTEM_DIRS.has(first)) return false;
  const joined = segments.join("/");
  for (const dir of TEMPORARY) if (joined === dir || joined.startsWith(`${dir}/`)) return false;
  return true;
}

const GLOB_CHARS = /[*?[]/;

/**
 * The targets whose recursive deletion wipes the machine or the user: `/`, `/*`, a top-level system
 * directory, `/home` (or a home under it), and the home directory itself (`~`, `~/*`, `$HOME`).
 */
export function isRootLikeDeleteTarget(raw: string): boolean {
  const path = normalizePath(raw);
  const segments = [...path.segments];
  while (segments.length > 0) {
    const last = segments[segments.length - 1];
    if (last === "*" || last === "**" || last === ".*" || last === "{*,.*}") segments.pop();
    else break;
  }
  if (path.home) return segments.length === 0;
  if (!path.absolute) return false;
  if (segments.length === 0) return true;
  if (segments.length === 1) {
    const first = segments[0];
    return SYSTEM_DIRS.has(first) || first === "home" || first === "users" || GLOB_CHARS.test(first);
  }
  return segments.length === 2 && (segments[0] === "home" || segments[0] === "users");
}

/** A working directory whose relative contents (`*`, `.`) are root-like (`cd /`, `cd ~`, `cd`). */
export function isRootLikeDirectory(raw: string): boolean {
  return isRootLikeDeleteTarget(raw);
}
