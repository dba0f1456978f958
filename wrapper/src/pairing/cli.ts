/** The runtime CLI's device pairing: running it and reading its pending list (the routes: `routes/pairing.ts`). */
import { execFile } from "node:child_process";

const CLI_TIMEOUT_MS = 10_000;
/** How long the runtime keeps a pairing request open. */
export const PAIRING_REQUEST_TTL_MS = 5 * 60 * 1000;
// The brief's [A-Za-z0-9_-]{1,128}, minus a leading "-" so an id can never read as a CLI option.
export interface PairingRequest {
  id: string;
  requestId: string;
  name: string | null;
  deviceName: string | null;
  ip: string | null;
  remoteIp: string | null;
  role: string | null;
  /** ISO 8601; null when the CLI gave no usable time. */
  createdAt: string | null;
  expiresAt: string | null;
}

export class CliError extends Error {}

/** Runs `<cli> ...args` without a shell; rejects with the CLI's stderr (or the spawn error) on failure. */
export function runCli(cliArgv: string[], args: string[], env?: NodeJS.ProcessEnv): Promise<string> {
  const [command, ...prefix] = cliArgv;
  if (!command) return Promise.reject(new CliError("no runtime CLI configured"));
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...prefix, ...args],
      { env, timeout: CLI_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return resolve(String(stdout));
        const killed = (error as { killed?: boolean }).killed;
        const detail = String(stderr).trim() || error.message;
        reject(
          new CliError(killed ? "runtime CLI timed out" : `runtime CLI failed: ${detail.slice(0, 500)}`),
        );
      },
    );
  });
}

function firstString(entry: Record<string, unknown>, keys: string[]): string | null {
  for (const key of keys) {
    const value = entry[key];
    if (typeof value === "string" && value.trim() !== "") return value;
    if (typeof value === "number" && Number.isFinite(value)) return String(value);
  }
  return null;
}

function toMillis(value: unknown): number | null {
  if (typeof value === "number" && Number.isFinite(value)) return value;
  if (typeof value === "string" && value.trim() !== "") {
    const asNumber = Number(value);
    if (Number.isFinite(asNumber)) return asNumber;
    const parsed = Date.parse(value);
    return Number.isNaN(parsed) ? null : parsed;
  }
  return null;
}

/** One pending request from the CLI's JSON, whatever variant of field names it used; null without an id. */
export function toPairingRequest(raw: unknown): PairingRequest | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null;
  const entry = raw as Record<string, unknown>;
  const id = firstString(entry, ["id", "requestId"]);
  if (!id) return null;
  const name = firstString(entry, ["name", "deviceName", "displayName"]);
  const ip = firstString(entry, ["ip", "remoteIp"]);
  let role = firstString(entry, ["role"]);
  if (!role && Array.isArray(entry.roles) && typeof entry.roles[0] === "string") role = entry.roles[0];
  let createdMs: number | null = null;
  for (const key of ["createdAt", "createdAtMs", "ts"]) {
    createdMs = toMillis(entry[key]);
    if (createdMs !== null) break;
  }
  const created = createdMs === null ? null : new Date(createdMs);
  const valid = created !== null && !Number.isNaN(created.getTime());
  return {
    id,
    requestId: id,
    name,
    deviceName: name,
    ip,
    remoteIp: ip,
    role,
    createdAt: valid ? created.toISOString() : null,
    expiresAt: valid ? new Date(created.getTime() + PAIRING_REQUEST_TTL_MS).toISOString() : null,
  };
}

/** The pending list from `devices list --json`: a top-level array, or `{pending: [...]}` / `{requests: [...]}`. */
export function parsePendingList(stdout: string): PairingRequest[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(stdout);
  } catch {
    throw new CliError("runtime CLI returned invalid JSON");
  }
  let list: unknown = parsed;
  if (!Array.isArray(parsed) && typeof parsed === "object" && parsed !== null) {
    const object = parsed as Record<string, unknown>;
    list = Array.isArray(object.pending)
      ? object.pending
      : Array.isArray(object.requests)
        ? object.requests
        : [];
  }
  if (!Array.isArray(list)) throw new CliError("runtime CLI returned an unexpected shape");
  return list.map(toPairingRequest).filter((item): item is PairingRequest => item !== null);
}
