/**
 * Who signed an EIP-3009 `TransferWithAuthorization` under a token's EIP-712 domain: the same digest and
 * secp256k1 recovery as viem's `recoverTypedDataAddress` (whose @noble/curves and @noble/hashes it calls
 * directly), without its per-call costs: the domain separator and type hash are hashed once per token and
 * chain instead of once per credential, the struct is encoded straight into bytes, and the curve is a static
 * import (viem imports it dynamically on every call).
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { keccak_256 } from "@noble/hashes/sha3";
import { bytesToHex, hexToBytes, utf8ToBytes } from "@noble/hashes/utils";
import { Types } from "mppx/evm";
import { domainSeparator } from "viem";
import type { Eip3009Authorization } from "./facilitator";

/** The EIP-712 domain a token signs under. */
export interface Eip712Domain {
  name: string;
  version: string;
  chainId: number;
  verifyingContract: `0x${string}`;
}

/** The signed fields of an authorization, as the credential carries them (decimal strings, hex). */
export type AuthorizationMessage = Omit<Eip3009Authorization, "signature">;

const PRIMARY_TYPE = "TransferWithAuthorization";
/** keccak256 of `TransferWithAuthorization(address from,…,bytes32 nonce)`, from mppx's own type list. */
const TYPE_HASH = keccak_256(
  utf8ToBytes(
    `${PRIMARY_TYPE}(${Types.authorizationTypes[PRIMARY_TYPE].map((f) => `${f.type} ${f.name}`).join(",")})`,
  ),
);
const UINT256_MAX = 2n ** 256n - 1n;
const ADDRESS = /^0x[0-9a-fA-F]{40}$/;
const BYTES32 = /^0x[0-9a-fA-F]{64}$/;
const HEX = /^0x[0-9a-fA-F]*$/;

/** The domain separator (viem's own hashing), once per domain. */
export function eip712DomainSeparator(domain: Eip712Domain): Uint8Array {
  return hexToBytes(domainSeparator({ domain }).slice(2));
}

/**
 * The digest signed for `message` under the domain whose separator is `separator`: keccak256(0x1901 ‖
 * separator ‖ keccak256(typeHash ‖ from ‖ to ‖ value ‖ validAfter ‖ validBefore ‖ nonce)), each field one
 * 32-byte ABI word. Throws, as viem does, for an address that is not 20 bytes, a nonce that is not 32 bytes
 * or an amount outside uint256.
 */
export function authorizationDigest(separator: Uint8Array, message: AuthorizationMessage): Uint8Array {
  const struct = new Uint8Array(7 * 32);
  struct.set(TYPE_HASH, 0);
  putAddress(struct, 1, message.from);
  putAddress(struct, 2, message.to);
  putUint256(struct, 3, message.value);
  putUint256(struct, 4, message.validAfter);
  putUint256(struct, 5, message.validBefore);
  if (!BYTES32.test(message.nonce)) throw new Error(`nonce ${message.nonce} is not 32 bytes`);
  struct.set(hexToBytes(message.nonce.slice(2)), 6 * 32);
  const signed = new Uint8Array(2 + 32 + 32);
  signed[0] = 0x19;
  signed[1] = 0x01;
  signed.set(separator, 2);
  signed.set(keccak_256(struct), 34);
  return keccak_256(signed);
}

/**
 * The address (lower-case hex) whose key made the 65-byte `signature` (r ‖ s ‖ v, v 0/1 or 27/28) of
 * `digest`; throws for a malformed signature or one no key could have made, with viem's checks.
 */
export function recoverSigner(digest: Uint8Array, signature: string): string {
  if (!HEX.test(signature)) throw new Error("the signature is not hex");
  // viem's rule: the hex's byte size (rounded up) is 65, v is whatever follows r and s.
  if (Math.ceil((signature.length - 2) / 2) !== 65) throw new Error("invalid signature length");
  const v = Number.parseInt(signature.slice(130), 16);
  const recovery = v === 0 || v === 27 ? 0 : v === 1 || v === 28 ? 1 : null;
  if (recovery === null) throw new Error("Invalid yParityOrV value");
  const publicKey = secp256k1.Signature.fromCompact(signature.slice(2, 130))
    .addRecoveryBit(recovery)
    .recoverPublicKey(digest)
    .toRawBytes(false);
  return `0x${bytesToHex(keccak_256(publicKey.subarray(1)).subarray(12))}`;
}

function putAddress(into: Uint8Array, word: number, address: string): void {
  if (!ADDRESS.test(address)) throw new Error(`${address} is not an address`);
  into.set(hexToBytes(address.slice(2)), word * 32 + 12);
}

function putUint256(into: Uint8Array, word: number, decimal: string): void {
  let n = BigInt(decimal);
  if (n < 0n || n > UINT256_MAX) throw new Error(`${decimal} is not in the uint256 range`);
  for (let i = word * 32 + 31; n > 0n; i--, n >>= 8n) into[i] = Number(n & 0xffn);
}
