/**
 * The wrapper's device identity towards OpenClaw's gateway. OpenClaw's WebSocket protocol requires every
 * client to present an ed25519 key and sign the server's `connect.challenge` nonce; a new device on a
 * direct loopback connection is paired automatically (OpenClaw 2026.4.11, `docs/gateway/protocol.md`).
 * The key is the wrapper's own (`<stateDir>/platform/device.json`, 0600), never the runtime's.
 */
import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** DER prefix of an ed25519 SubjectPublicKeyInfo: the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from("302a300506032b6570032100", "hex");

export interface DeviceIdentity {
  /** SHA-256 of the raw public key, hex (OpenClaw's device id). */
  deviceId: string;
  /** The raw public key, base64url. */
  publicKey: string;
  privateKeyPem: string;
}

function base64Url(buffer: Buffer): string {
  return buffer.toString("base64url");
}

function fromPrivateKeyPem(privateKeyPem: string): DeviceIdentity {
  const privateKey = createPrivateKey(privateKeyPem);
  if (privateKey.asymmetricKeyType !== "ed25519") throw new Error("the device key is not ed25519");
  const spki = createPublicKey(privateKey).export({ type: "spki", format: "der" });
  const raw = spki.subarray(ED25519_SPKI_PREFIX.length);
  return {
    deviceId: createHash("sha256").update(raw).digest("hex"),
    publicKey: base64Url(raw),
    privateKeyPem,
  };
}

/** Loads the identity at `path`, creating it (0600) when missing or unreadable. */
export function loadOrCreateDeviceIdentity(path: string): DeviceIdentity {
  try {
    const stored = JSON.parse(readFileSync(path, "utf8")) as { privateKeyPem?: unknown };
    if (typeof stored.privateKeyPem === "string") return fromPrivateKeyPem(stored.privateKeyPem);
  } catch {
    // Missing or damaged: a new identity is simply a new device, paired again on loopback.
  }
  const { privateKey } = generateKeyPairSync("ed25519");
  const privateKeyPem = privateKey.export({ type: "pkcs8", format: "pem" }) as string;
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${JSON.stringify({ version: 1, privateKeyPem }, null, 2)}\n`, { mode: 0o600 });
  return fromPrivateKeyPem(privateKeyPem);
}

export interface ConnectSignatureInput {
  clientId: string;
  clientMode: string;
  role: string;
  scopes: string[];
  signedAtMs: number;
  token: string;
  nonce: string;
}

/** OpenClaw's v2 device-auth payload (`v2|device|client|mode|role|scopes|signedAt|token|nonce`), signed. */
export function signConnect(identity: DeviceIdentity, input: ConnectSignatureInput): string {
  const payload = [
    "v2",
    identity.deviceId,
    input.clientId,
    input.clientMode,
    input.role,
    input.scopes.join(","),
    String(input.signedAtMs),
    input.token,
    input.nonce,
  ].join("|");
  return base64Url(sign(null, Buffer.from(payload, "utf8"), createPrivateKey(identity.privateKeyPem)));
}
