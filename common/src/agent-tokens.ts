import { decryptText, deriveKey, encryptText, hmacHex } from "./crypto";

/**
 * Agent gateway tokens are stored encrypted, not hashed (the platform needs them back: the chat worker and the
 * "gateway token" operation use them). The key is a subkey of DATA_ENCRYPTION_KEY, derived once per key
 * (HKDF costs more than the decryption itself, and the scheduler opens a token for every dispatch).
 */
let derived: { secret: string; key: Buffer } | undefined;

function gatewayTokenKey(dataEncryptionKey: string): Buffer {
  if (derived?.secret !== dataEncryptionKey)
    derived = { secret: dataEncryptionKey, key: deriveKey(dataEncryptionKey, "agent-gateway-token") };
  return derived.key;
}

export function sealGatewayToken(dataEncryptionKey: string, token: string): string {
  return encryptText(gatewayTokenKey(dataEncryptionKey), token);
}

export function openGatewayToken(dataEncryptionKey: string, sealed: string): string {
  return decryptText(gatewayTokenKey(dataEncryptionKey), sealed);
}

/**
 * The password of an agent's wrapper admin API (config, pairing, logs, gateway stop): its own secret, never
 * the gateway token the runtime and its tools hold. Derived (HMAC-SHA256 keyed with DATA_ENCRYPTION_KEY over
 * a domain-separated agent id and token), so the platform needs to store nothing more, a new token gives a
 * new password, and nobody holding the token alone can compute it.
 */
export function wrapperAdminPassword(
  dataEncryptionKey: string,
  agentId: string,
  gatewayToken: string,
): string {
  return hmacHex(
    dataEncryptionKey,
    JSON.stringify(["agent-platform/wrapper-admin-password/v1", agentId, gatewayToken]),
  );
}

/** The address a wrapper listens on, as its identity proof states it (its HOST and WRAPPER_PORT). */
export interface WrapperListenAddress {
  host: string;
  port: number;
}

/**
 * A wrapper's answer to the platform's identity challenge (`GET /api/identity?challenge=`): HMAC-SHA256 keyed
 * with its admin password — a secret its runtime and the agent's tools never get — over the challenge and
 * the address it listens on. Only the agent's own wrapper can answer a fresh challenge; the address stops a
 * relay (an impostor on the agent's old port that asks the real wrapper, now on another port, gets a proof
 * of that other port).
 */
export function wrapperIdentityProof(
  adminPassword: string,
  challenge: string,
  listen: WrapperListenAddress,
): string {
  return hmacHex(
    adminPassword,
    JSON.stringify(["agent-platform/wrapper-identity/v1", challenge, listen.host, listen.port]),
  );
}
