import { decryptText, deriveKey, encryptText } from "./crypto";

/**
 * Agent gateway tokens are stored encrypted (the spec needs them back: the chat worker and the
 * "gateway token" operation use them). The key is a subkey of DATA_ENCRYPTION_KEY.
 */
export function sealGatewayToken(dataEncryptionKey: string, token: string): string {
  return encryptText(deriveKey(dataEncryptionKey, "agent-gateway-token"), token);
}

export function openGatewayToken(dataEncryptionKey: string, sealed: string): string {
  return decryptText(deriveKey(dataEncryptionKey, "agent-gateway-token"), sealed);
}
