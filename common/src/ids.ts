import { randomBytes } from "node:crypto";

const ALPHABET = "0123456789abcdefghijklmnopqrstuvwxyz";

/** A random lower-case alphanumeric string, uniformly drawn (rejection sampling, no modulo bias). */
export function randomId(length = 20): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 252 && out.length < length) out += ALPHABET[byte % 36];
    }
  }
  return out;
}

/** An id with a prefix, e.g. `newId("usr")` -> `usr_3k9x...`. */
export function newId(prefix: string, length = 20): string {
  return `${prefix}_${randomId(length)}`;
}

/** Ids that carry the creation time: `job_<ms>_<random>`, `perm_<ms>_<random>`, `hook_<ms>_<random>`. */
export function timestampedId(prefix: "job" | "perm" | "hook", now: Date = new Date()): string {
  return `${prefix}_${now.getTime()}_${randomId(10)}`;
}
