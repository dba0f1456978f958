import { isAbsolute, posix, relative, resolve, sep } from "node:path";
import { pathOutsideStorage } from "../errors";

/** The absolute path of `key` under the directory `root`; 403 when it resolves outside it (or is the root). */
export function pathInsideRoot(root: string, key: string): string {
  const base = resolve(root);
  const full = resolve(base, key);
  const rel = relative(base, full);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) throw pathOutsideStorage();
  return full;
}

/** An object key as the bucket's root sees it (`a/../b` → `b`); 403 when it climbs out of the root. */
export function keyInsideBucket(key: string): string {
  const normalized = posix.normalize(key.replaceAll("\\", "/"));
  if (
    normalized === "" ||
    normalized === "." ||
    normalized === ".." ||
    normalized.startsWith("../") ||
    posix.isAbsolute(normalized)
  ) {
    throw pathOutsideStorage();
  }
  return normalized;
}
