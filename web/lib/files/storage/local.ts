import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, rename, rm, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomId } from "@svc/common";
import type { FileStorage } from "./index";
import { pathInsideRoot } from "./keys";

/**
 * Files in one directory of this machine (`FILES_DIR`). An upload is written to a hidden temporary name and
 * renamed to its key only when complete, so a cut-off or failed upload never shows up under its key, and
 * its temporary file is removed.
 */
export function localStorage(root: string): FileStorage {
  let ready: Promise<unknown> | undefined;
  return {
    driver: "local",
    async put(key, body) {
      const target = pathInsideRoot(root, key);
      ready ??= mkdir(root, { recursive: true });
      await ready;
      const partial = pathInsideRoot(root, `.partial-${randomId(12)}`);
      try {
        await pipeline(body, createWriteStream(partial, { flags: "wx" }));
        await rename(partial, target);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
    },
    async open(key): Promise<Readable | null> {
      const path = pathInsideRoot(root, key);
      const found = await stat(path).catch(() => null);
      // Large reads: each chunk costs the same to pass through the web stream to the response.
      return found?.isFile() ? createReadStream(path, { highWaterMark: 256 * 1024 }) : null;
    },
    async remove(key) {
      await rm(pathInsideRoot(root, key), { force: true });
    },
  };
}
