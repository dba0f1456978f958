import { createHash, randomBytes } from "node:crypto";
import { chmod, mkdir, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { isHttpError } from "@svc/common";
import { startFakeS3 } from "@svc/common/testing";
import { afterAll, describe, expect, it } from "vitest";
import type { FileStorage } from "./index";
import { localStorage } from "./local";
import { s3Storage } from "./s3";

const MIB = 1024 * 1024;
const dir = await mkdtemp(join(tmpdir(), "svc-storage-local-"));
const other = await mkdtemp(join(tmpdir(), "svc-storage-modes-"));
const s3 = await startFakeS3("storage-test");
afterAll(async () => {
  await s3.close();
  await rm(dir, { recursive: true, force: true });
  await rm(other, { recursive: true, force: true });
});

const drivers: Array<[string, FileStorage, () => Promise<string[]>]> = [
  ["local", localStorage(dir), async () => (await readdir(dir).catch(() => [])).sort()],
  [
    "s3",
    s3Storage({
      endpoint: s3.endpoint,
      bucket: s3.bucket,
      region: s3.region,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    }),
    () => s3.storedFiles(),
  ],
];

/** `total` random bytes in 256 KiB chunks, failing with `failAt` bytes sent when given; and their SHA-256. */
function source(total: number, failAt?: number) {
  const hash = createHash("sha256");
  let sent = 0;
  const stream = new Readable({
    read() {
      if (failAt !== undefined && sent >= failAt) return void this.destroy(new Error("client went away"));
      if (sent >= total) return void this.push(null);
      const chunk = randomBytes(Math.min(256 * 1024, total - sent));
      sent += chunk.length;
      hash.update(chunk);
      this.push(chunk);
    },
  });
  return { stream, digest: () => hash.digest("hex") };
}

async function digestOf(stream: Readable): Promise<{ hex: string; size: number }> {
  const hash = createHash("sha256");
  let size = 0;
  for await (const chunk of stream) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { hex: hash.digest("hex"), size };
}

describe.each(drivers)("%s storage driver", (_name, storage, storedFiles) => {
  it("streams a 12 MiB body in (a multipart upload on S3) and out, and removes it", async () => {
    const body = source(12 * MIB);
    await storage.put("file_big", body.stream, "application/octet-stream");
    const opened = await storage.open("file_big");
    expect(opened).not.toBeNull();
    expect(await digestOf(opened as Readable)).toEqual({ hex: body.digest(), size: 12 * MIB });
    await storage.remove("file_big");
    expect(await storage.open("file_big")).toBeNull();
    await storage.remove("file_big");
  });

  it("a body that fails after 7 MiB (one part stored) rejects and leaves no object and no parts", async () => {
    const before = await storedFiles();
    const body = source(12 * MIB, 7 * MIB);
    await expect(storage.put("file_failed", body.stream, "application/octet-stream")).rejects.toThrow(
      "client went away",
    );
    expect(await storage.open("file_failed")).toBeNull();
    expect(await storedFiles()).toEqual(before);
  });

  it("refuses keys that resolve outside its root with 403, for put, open and remove", async () => {
    for (const key of ["../escape", "a/../../escape", "/etc/passwd", "..", ""]) {
      for (const attempt of [
        () => storage.put(key, Readable.from([Buffer.from("x")]), "text/plain"),
        () => storage.open(key),
        () => storage.remove(key),
      ]) {
        const err = await attempt().then(
          () => null,
          (e: unknown) => e,
        );
        expect(isHttpError(err) && err.status, key).toBe(403);
      }
    }
  });
});

describe("local storage driver: the platform's files alone", () => {
  const modeOf = async (path: string) => (await stat(path)).mode & 0o777;

  it("keeps its directory 0700 and each file 0600, whatever the umask", async () => {
    const root = join(other, "fresh", "files");
    const storage = localStorage(root);
    const before = process.umask(0o000);
    try {
      await storage.put("file_new", Readable.from([Buffer.from("secret")]), "text/plain");
    } finally {
      process.umask(before);
    }
    expect(await modeOf(root)).toBe(0o700);
    expect(await modeOf(join(root, "file_new"))).toBe(0o600);
  });

  it("closes a directory an older version left open (0755, files 0644) on first use, even a read", async () => {
    const root = join(other, "legacy");
    await mkdir(join(root, "nested"), { recursive: true });
    await chmod(root, 0o755);
    await chmod(join(root, "nested"), 0o755);
    await writeFile(join(root, "file_old"), "old upload", { mode: 0o644 });
    await writeFile(join(root, "nested", "file_deep"), "deeper", { mode: 0o644 });
    await chmod(join(root, "file_old"), 0o644);

    const opened = await localStorage(root).open("file_old");
    opened?.destroy();
    expect(opened).not.toBeNull();
    expect(await modeOf(root)).toBe(0o700);
    expect(await modeOf(join(root, "file_old"))).toBe(0o600);
    expect(await modeOf(join(root, "nested"))).toBe(0o700);
    expect(await modeOf(join(root, "nested", "file_deep"))).toBe(0o600);
  });
});
