/**
 * Device pairing requests as OpenClaw's `device.pair.list` RPC lists them (`requestId, deviceId, displayName,
 * platform, clientId, role, roles, scopes, remoteIp, ts` on 2026.4.11), in the platform's pairing-request shape
 * (the routes: `routes/pairing.ts`). OpenClaw gives no expiry: `expiresAt` is its pending TTL after `ts`.
 */
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
  /** OpenClaw's own fields, null when absent. */
  deviceId: string | null;
  platform: string | null;
  clientId: string | null;
  scopes: string[];
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
    deviceId: firstString(entry, ["deviceId"]),
    platform: firstString(entry, ["platform"]),
    clientId: firstString(entry, ["clientId"]),
    scopes: Array.isArray(entry.scopes) ? entry.scopes.filter((s): s is string => typeof s === "string") : [],
  };
}

/** The pending list of a `device.pair.list` answer (`{pending: [...], paired: [...]}`). */
export function pendingRequests(answer: unknown): PairingRequest[] {
  const pending = (answer as { pending?: unknown } | null)?.pending;
  if (!Array.isArray(pending)) return [];
  return pending.map(toPairingRequest).filter((item): item is PairingRequest => item !== null);
}
