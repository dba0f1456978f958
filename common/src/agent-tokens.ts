import { decryptText, deriveKey, encryptText } from "./crypto";

/**
 * Agent gateway tokens are stored encrypted (the spec needs them back: the chat worker and the
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
