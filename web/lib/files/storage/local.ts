import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { randomId } from "@svc/common";
import { ensurePrivateDir } from "@svc/common/file-modes";
import type { FileStorage } from "./index";
import { pathInsideRoot } from "./keys";

/**
 * Files in one directory of this machine (`FILES_DIR`). An upload is written to a hidden temporary name and
 * renamed to its key only when complete, so a cut-off or failed upload never shows up under its key, and
 * its temporary file is removed.
 *
 * The directory is the platform's alone (0700, files 0600): as root, local agents run as their own OS users
 * and must not read users' uploads. A directory an older version left open (0755, files 0644) is closed on
 * first use.
 */
export function localStorage(root: string): FileStorage {
  let ready: Promise<void> | undefined;
  const prepared = () => {
    ready ??= ensurePrivateDir(root).catch((err: unknown) => {
      ready = undefined;
      throw err;
    });
    return ready;
  };
  return {
    driver: "local",
    async put(key, body) {
      const target = pathInsideRoot(root, key);
      await prepared();
      const partial = pathInsideRoot(root, `.partial-${randomId(12)}`);
      try {
        await pipeline(body, createWriteStream(partial, { flags: "wx", mode: 0o600 }));
        await rename(partial, target);
      } catch (err) {
        await rm(partial, { force: true });
        throw err;
      }
    },
    async open(key): Promise<Readable | null> {
      const path = pathInsideRoot(root, key);
      await prepared();
      const found = await stat(path).catch(() => null);
      // Large reads: each chunk costs the same to pass through the web stream to the response.
      return found?.isFile() ? createReadStream(path, { highWaterMark: 256 * 1024 }) : null;
    },
    async remove(key) {
      const path = pathInsideRoot(root, key);
      await prepared();
      await rm(path, { force: true });
    },
  };
}
