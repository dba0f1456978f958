/** The runtime's configuration file: reading, redacting, atomic writing, and its AI provider (the routes: `routes/config.ts`). */
import { randomBytes } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { mkdir, open, readFile, rename, unlink } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import JSON5 from "json5";

export const REDACTED = "[redacted]";
const SENSITIVE_KEYS = new Set(
  ["botToken", "token", "appToken", "apiKey", "password", "serviceAccount", "secret", "key", "auth"].map(
    (k) => k.toLowerCase(),
  ),
);

export type ConfigObject = Record<string, unknown>;

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEYS.has(key.toLowerCase());
}

export function isPlainObject(value: unknown): value is ConfigObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The config file could not be read or parsed (a 500, unlike a missing file). */
export class ConfigReadError extends Error {}

/** Reads and parses the runtime config (JSON5). `null` when there is no file. */
export async function readRuntimeConfig(configPath: string): Promise<ConfigObject | null> {
  let text: string;
  try {
    text = await readFile(configPath, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigReadError(`cannot read configuration: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON5.parse(text);
  } catch (error) {
    throw new ConfigReadError(`configuration is not valid JSON5: ${(error as Error).message}`);
  }
  if (!isPlainObject(parsed)) throw new ConfigReadError("configuration is not a JSON object");
  return parsed;
}

/**
 * Replaces the values of sensitive keys (any depth, through arrays, case-insensitive) with `[redacted]`.
 * null, undefined and "" stay as they are, so the UI can still tell an unset secret from a set one.
 */
export function redact<T>(value: T): T {
  if (Array.isArray(value)) return value.map((item) => redact(item)) as T;
  if (!isPlainObject(value)) return value;
  const out: ConfigObject = {};
  for (const [key, inner] of Object.entries(value)) {
    if (isSensitiveKey(key) && inner !== null && inner !== undefined && inner !== "") out[key] = REDACTED;
    else out[key] = redact(inner);
  }
  return out as T;
}

/**
 * The configuration to write: `incoming`, except that a sensitive key still holding `[redacted]` gets the
 * stored value at the same path back (and is dropped when nothing is stored there, rather than saving the
 * placeholder as a secret).
 */
export function restoreRedacted(incoming: unknown, stored: unknown): unknown {
  if (Array.isArray(incoming)) {
    return incoming.map((item, i) => restoreRedacted(item, Array.isArray(stored) ? stored[i] : undefined));
  }
  if (!isPlainObject(incoming)) return incoming;
  const storedObject = isPlainObject(stored) ? stored : {};
  const out: ConfigObject = {};
  for (const [key, value] of Object.entries(incoming)) {
    if (isSensitiveKey(key) && value === REDACTED) {
      if (Object.hasOwn(storedObject, key)) out[key] = storedObject[key];
      continue;
    }
    out[key] = restoreRedacted(value, storedObject[key]);
  }
  return out;
}

/** Writes the file atomically: a 0600 temp file in the same directory, fsync, then rename over the target. */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const temp = join(dir, `.${basename(path)}.${process.pid}.${randomBytes(6).toString("hex")}.tmp`);
  try {
    const handle = await open(temp, "wx", 0o600);
    try {
      await handle.writeFile(content, "utf8");
      await handle.chmod(0o600); // the umask may have narrowed the mode on open; never widen it beyond 0600
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
}

/** Writes a new full configuration, keeping stored secrets wherever the client sent back `[redacted]`. */
export async function writeRuntimeConfig(configPath: string, incoming: ConfigObject): Promise<ConfigObject> {
  let stored: ConfigObject | null = null;
  try {
    stored = await readRuntimeConfig(configPath);
  } catch {
    // An unreadable old file has no secrets to keep; the new configuration replaces it.
  }
  const merged = restoreRedacted(incoming, stored) as ConfigObject;
  await writeFileAtomic(configPath, `${JSON.stringify(merged, null, 2)}\n`);
  return merged;
}

const providerCache = new Map<string, { mtimeMs: number; size: number; provider: string | null }>();

function providerOf(model: unknown): string | null {
  if (isPlainObject(model)) {
    if (typeof model.provider === "string" && model.provider.trim() !== "") return model.provider;
    return providerOf(model.primary);
  }
  if (typeof model !== "string") return null;
  // Model references are written `<provider>/<model>` (for example `anthropic/claude-sonnet-4-5`).
  const slash = model.indexOf("/");
  return slash > 0 ? model.slice(0, slash) : null;
}

/** The AI provider from a parsed configuration; see `aiProviderFrom`. */
export function aiProviderOf(config: ConfigObject): string | null {
  const agents = isPlainObject(config.agents) ? config.agents : {};
  const defaults = isPlainObject(agents.defaults) ? agents.defaults : {};
  const fromModel = providerOf(defaults.model);
  if (fromModel) return fromModel;
  const models = isPlainObject(config.models) ? config.models : {};
  if (isPlainObject(models.providers)) {
    const [first] = Object.keys(models.providers);
    if (first) return first;
  }
  return null;
}

/**
 * The configured AI provider, or null: `agents.defaults.model` (`provider`, or
 * the `<provider>/` prefix of `primary` or of the model string); else the first key of `models.providers`.
 * Synchronous and cached by the file's mtime and size, so a status request costs one stat.
 */
export function aiProviderFrom(configPath: string): string | null {
  let stat: { mtimeMs: number; size: number };
  try {
    stat = statSync(configPath);
  } catch {
    providerCache.delete(configPath);
    return null;
  }
  const cached = providerCache.get(configPath);
  if (cached && cached.mtimeMs === stat.mtimeMs && cached.size === stat.size) return cached.provider;
  let provider: string | null = null;
  try {
    const parsed: unknown = JSON5.parse(readFileSync(configPath, "utf8"));
    if (isPlainObject(parsed)) provider = aiProviderOf(parsed);
  } catch {
    provider = null;
  }
  providerCache.set(configPath, { mtimeMs: stat.mtimeMs, size: stat.size, provider });
  return provider;
}
