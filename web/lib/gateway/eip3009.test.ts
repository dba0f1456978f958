/**
 * The gateway's EIP-3009 signature recovery (billing/eip3009.ts) against viem's `hashTypedData` and
 * `recoverTypedDataAddress`, which it replaces on the MPP verification path: the same digest, the same
 * signer, and a refusal wherever viem refuses.
 */
import { secp256k1 } from "@noble/curves/secp256k1";
import { BASE_SEPOLIA_USDC, BASE_USDC } from "@svc/common/testing/fakes/x402";
import { Types } from "mppx/evm";
import { getAddress, type Hex, hashTypedData, recoverTypedDataAddress } from "viem";
import { describe, expect, it } from "vitest";
import {
  type AuthorizationMessage,
  authorizationDigest,
  type Eip712Domain,
  eip712DomainSeparator,
  recoverSigner,
} from "./billing/eip3009";
import { newAccount } from "./mpp-support";

const DOMAINS: Eip712Domain[] = [
  { name: "USD Coin", version: "2", chainId: 8453, verifyingContract: BASE_USDC },
  { name: "USDC", version: "2", chainId: 84532, verifyingContract: BASE_SEPOLIA_USDC },
  {
    name: "Test Dollar",
    version: "1",
    chainId: 84532,
    verifyingContract: getAddress("0x00000000000000000000000000000000000c0ffe"),
  },
];
const UINT256_MAX = 2n ** 256n - 1n;
const N = secp256k1.CURVE.n;

function randomHex(bytes: number): Hex {
  return `0x${Buffer.from(crypto.getRandomValues(new Uint8Array(bytes))).toString("hex")}`;
}
function randomUint(): bigint {
  return BigInt(randomHex(32)) >> BigInt(Math.floor(Math.random() * 256));
}

function viemMessage(m: AuthorizationMessage) {
  return {
    from: m.from as Hex,
    to: m.to as Hex,
    value: BigInt(m.value),
    validAfter: BigInt(m.validAfter),
    validBefore: BigInt(m.validBefore),
    nonce: m.nonce as Hex,
  };
}
const typed = (domain: Eip712Domain, m: AuthorizationMessage) => ({
  domain,
  types: Types.authorizationTypes,
  primaryType: "TransferWithAuthorization" as const,
  message: viemMessage(m),
});

async function signed(domain: Eip712Domain, overrides: Partial<AuthorizationMessage> = {}) {
  const account = newAccount();
  const message: AuthorizationMessage = {
    from: account.address,
    to: newAccount().address.toLowerCase(),
    value: randomUint().toString(),
    validAfter: randomUint().toString(),
    validBefore: randomUint().toString(),
    nonce: randomHex(32),
    ...overrides,
  };
  const signature = await account.signTypedData(typed(domain, message));
  return { account, message, signature };
}

/** viem's answer for the same inputs: the signer (lower-case) or "refused". */
async function viemSigner(domain: Eip712Domain, message: AuthorizationMessage, signature: string) {
  try {
    const signer = await recoverTypedDataAddress({ ...typed(domain, message), signature: signature as Hex });
    return signer.toLowerCase();
  } catch {
    return "refused";
  }
}
function ourSigner(domain: Eip712Domain, message: AuthorizationMessage, signature: string) {
  try {
    return recoverSigner(authorizationDigest(eip712DomainSeparator(domain), message), signature);
  } catch {
    return "refused";
  }
}

describe("EIP-3009 authorization signatures, beside viem", () => {
  it("the digest is viem's hashTypedData and the signer is the account, for random authorizations", async () => {
    for (const domain of DOMAINS) {
      for (let i = 0; i < 20; i++) {
        const { account, message, signature } = await signed(domain, i === 0 ? { value: "0" } : {});
        const digest = authorizationDigest(eip712DomainSeparator(domain), message);
        expect(`0x${Buffer.from(digest).toString("hex")}`).toBe(hashTypedData(typed(domain, message)));
        expect(recoverSigner(digest, signature)).toBe(account.address.toLowerCase());
      }
    }
    const edge = await signed(DOMAINS[0], {
      value: UINT256_MAX.toString(),
      validBefore: UINT256_MAX.toString(),
    });
    expect(ourSigner(DOMAINS[0], edge.message, edge.signature)).toBe(edge.account.address.toLowerCase());
  });

  it("another domain, message field or signer recovers another address", async () => {
    const { account, message, signature } = await signed(DOMAINS[0]);
    const mine = account.address.toLowerCase();
    expect(ourSigner(DOMAINS[1], message, signature)).not.toBe(mine);
    expect(ourSigner({ ...DOMAINS[0], version: "1" }, message, signature)).not.toBe(mine);
    expect(ourSigner(DOMAINS[0], { ...message, value: `${message.value}1` }, signature)).not.toBe(mine);
    expect(ourSigner(DOMAINS[0], { ...message, to: newAccount().address }, signature)).not.toBe(mine);
    expect(ourSigner(DOMAINS[0], { ...message, nonce: randomHex(32) }, signature)).not.toBe(mine);
  });

  it("v as 0/1 or 27/28, the high-s twin and broken signatures: the same answer as viem", async () => {
    const domain = DOMAINS[1];
    const { message, signature } = await signed(domain);
    const r = BigInt(`0x${signature.slice(2, 66)}`);
    const s = BigInt(`0x${signature.slice(66, 130)}`);
    const v = Number.parseInt(signature.slice(130), 16);
    const word = (n: bigint) => n.toString(16).padStart(64, "0");
    const byte = (n: number) => n.toString(16).padStart(2, "0");
    const variants: Record<string, string> = {
      "as signed": signature,
      "v as y parity": `0x${word(r)}${word(s)}${byte(v - 27)}`,
      "high s, parity flipped": `0x${word(r)}${word(N - s)}${byte(v === 27 ? 28 : 27)}`,
      "the other parity": `0x${word(r)}${word(s)}${byte(v === 27 ? 28 : 27)}`,
      "v 29": `0x${word(r)}${word(s)}1d`,
      "v 2": `0x${word(r)}${word(s)}02`,
      "r zero": `0x${word(0n)}${word(s)}${byte(v)}`,
      "s zero": `0x${word(r)}${word(0n)}${byte(v)}`,
      "r at the curve order": `0x${word(N)}${word(s)}${byte(v)}`,
      "s at the curve order": `0x${word(r)}${word(N)}${byte(v)}`,
      "r off the curve": `0x${word(5n)}${word(s)}${byte(v)}`,
      "64 bytes": signature.slice(0, 130),
      "66 bytes": `${signature}00`,
      "odd length, v one digit": `0x${word(r)}${word(s)}${(v - 27).toString(16)}`,
      "not hex": `0x${word(r)}${word(s)}zz`,
      empty: "0x",
    };
    for (const [name, variant] of Object.entries(variants)) {
      expect({ name, signer: ourSigner(domain, message, variant) }).toEqual({
        name,
        signer: await viemSigner(domain, message, variant),
      });
    }
    expect(ourSigner(domain, message, variants["v as y parity"])).not.toBe("refused");
    expect(ourSigner(domain, message, variants["v 29"])).toBe("refused");
  });

  it("fields viem cannot encode are refused: an amount past uint256, a short nonce, a short address", async () => {
    const { message, signature } = await signed(DOMAINS[0]);
    const broken: Partial<AuthorizationMessage>[] = [
      { value: (UINT256_MAX + 1n).toString() },
      { validBefore: (UINT256_MAX + 1n).toString() },
      { nonce: randomHex(31) },
      { to: randomHex(19) },
    ];
    for (const fields of broken) {
      expect(() =>
        authorizationDigest(eip712DomainSeparator(DOMAINS[0]), { ...message, ...fields }),
      ).toThrow();
      expect(await viemSigner(DOMAINS[0], { ...message, ...fields }, signature)).toBe("refused");
    }
  });
});
