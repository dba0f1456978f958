/**
 * Agent wallet private keys at rest: AES-256-GCM under a key derived (HKDF) from WALLET_ENCRYPTION_KEY for
 * this one use. A key is decrypted only to sign, and never returned or logged.
 */
import { decryptText, deriveKey, encryptText } from "@svc/common";
import type { Hex } from "viem";
import { walletKeyMissing } from "./errors";

const keyOf = (secret: string | undefined): Buffer => {
  if (!secret) throw walletKeyMissing();
  return deriveKey(secret, "agent-wallet-private-key");
};

export function sealPrivateKey(secret: string | undefined, privateKey: Hex): string {
  return encryptText(keyOf(secret), privateKey);
}

export function openPrivateKey(secret: string | undefined, sealed: string): Hex {
  return decryptText(keyOf(secret), sealed) as Hex;
}
