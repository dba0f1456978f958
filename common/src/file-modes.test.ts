import { chmod, chown, lchown, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureNotWritableByOthers, ensurePrivateDir, untrustedReason } from "./file-modes";

const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
let base = "";

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "svc-file-modes-"));
  await chmod(base, 0o755);
});
afterAll(() => rm(base, { recursive: true, force: true }));

const modeOf = async (path: string) => (await stat(path)).mode & 0o7777;

async function made(path: string, mode: number, file = false): Promise<string> {
  if (file) await writeFile(path, "x");
  else await mkdir(path);
  await chmod(path, mode);
  return path;
}

describe("ensurePrivateDir and ensureNotWritableByOthers", () => {
  it("close what an open directory holds, top-down, and never change what a link inside points to", async () => {
    const outside = await made(join(base, "outside.txt"), 0o666, true);
    const dir = await made(join(base, "open"), 0o777);
    await made(join(dir, "sub"), 0o775);
    await made(join(dir, "sub", "f"), 0o664, true);
    await symlink(outside, join(dir, "link"));

    await ensureNotWritableByOthers(dir);
    expect([await modeOf(dir), await modeOf(join(dir, "sub")), await modeOf(join(dir, "sub", "f"))]).toEqual([
      0o755, 0o755, 0o644,
    ]);
    await ensurePrivateDir(dir);
    expect([await modeOf(dir), await modeOf(join(dir, "sub")), await modeOf(join(dir, "sub", "f"))]).toEqual([
      0o700, 0o700, 0o600,
    ]);
    expect(await modeOf(outside)).toBe(0o666);
  });

  it("leave a closed directory's contents alone (one look, not a walk, on every start)", async () => {
    const dir = await made(join(base, "closed"), 0o700);
    const inside = await made(join(dir, "f"), 0o644, true);
    await ensurePrivateDir(dir);
    expect(await modeOf(inside)).toBe(0o644);
    await ensureNotWritableByOthers(dir, { everything: true });
    expect(await modeOf(inside)).toBe(0o644);
  });

  it("ensurePrivateDir creates a missing directory 0700, and those above it as usual", async () => {
    const dir = join(base, "new", "files");
    const before = process.umask(0o022);
    try {
      await ensurePrivateDir(dir);
    } finally {
      process.umask(before);
    }
    expect(await modeOf(dir)).toBe(0o700);
    expect(await modeOf(join(base, "new"))).toBe(0o755);
  });
});

describe("untrustedReason", () => {
  it("trusts a path of root's (or this user's) closed directories, under a sticky /tmp", async () => {
    const dir = await made(join(base, "trusted"), 0o755);
    expect(await untrustedReason(dir)).toEqual({ real: dir, reason: null });
    expect(await untrustedReason("/tmp")).toMatchObject({ reason: "/tmp is writable by others (mode 1777)" });
  });

  it("refuses a path writable by its group or others, itself or above it", async () => {
    const open = await made(join(base, "group-writable"), 0o775);
    const inside = await made(join(open, "x"), 0o755);
    expect((await untrustedReason(inside)).reason).toBe(`${open} is writable by its group (mode 0775)`);
    const world = await made(join(base, "world-writable"), 0o757);
    expect((await untrustedReason(world)).reason).toBe(`${world} is writable by others (mode 0757)`);
  });

  it("follows a link of its own to where it leads, and checks that path too", async () => {
    const target = await made(join(base, "target"), 0o755);
    await symlink(target, join(base, "to-target"));
    expect(await untrustedReason(join(base, "to-target"))).toEqual({ real: target, reason: null });
    const open = await made(join(base, "open-target"), 0o777);
    await symlink(open, join(base, "to-open"));
    expect((await untrustedReason(join(base, "to-open"))).reason).toBe(
      `${open} is writable by others (mode 0777)`,
    );
  });

  it.runIf(asRoot)("refuses what another user owns: a directory on the way, or a link", async () => {
    const theirs = await made(join(base, "theirs"), 0o755);
    await chown(theirs, NOBODY, NOBODY);
    const below = await made(join(theirs, "below"), 0o755);
    expect((await untrustedReason(below)).reason).toBe(`${theirs} is owned by uid ${NOBODY}, not by root`);
    const target = await made(join(base, "root-target"), 0o755);
    const link = join(base, "their-link");
    await symlink(target, link);
    await lchown(link, NOBODY, NOBODY);
    expect((await untrustedReason(link)).reason).toBe(`${link} is owned by uid ${NOBODY}, not by root`);
  });
});
