import { randomBytes } from "node:crypto";
import { chmod, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** Local secrets generated once and kept in `.data/secrets.json` (mode 0600). */
export const LOCAL_SECRETS = [
  "INTERNAL_API_KEY",
  "HMAC_SECRET",
  "SESSION_SECRET",
  "WALLET_ENCRYPTION_KEY",
  "DATA_ENCRYPTION_KEY",
  "EMBEDDED_PG_PASSWORD",
  "MPP_SECRET",
] as const;
export type LocalSecrets = Record<(typeof LOCAL_SECRETS)[number], string>;

/**
 * Returns every local secret: the environment's value when set, else the stored one, else a new random
 * 32-byte hex value that is then stored. The file is only rewritten when something was added.
 */
export async function ensureLocalSecrets(
  dataDir: string,
  env: Record<string, string | undefined> = process.env,
): Promise<LocalSecrets> {
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, "secrets.json");
  let stored: Record<string, string> = {};
  try {
    stored = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== "ENOENT") {
      throw new Error(`${file} is not readable JSON (${(err as Error).message}); fix or delete it`);
    }
  }
  let added = false;
  for (const name of LOCAL_SECRETS) {
    if (typeof stored[name] !== "string" || stored[name].length < 32) {
      stored[name] = randomBytes(32).toString("hex");
      added = true;
    }
  }
  if (added) {
    const temp = `${file}.${process.pid}.tmp`;
    await writeFile(temp, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
    await rename(temp, file);
  }
  await chmod(file, 0o600);
  const secrets = {} as LocalSecrets;
  for (const name of LOCAL_SECRETS) secrets[name] = env[name]?.trim() || stored[name];
  return secrets;
}
