/**
 * Test support for MPP: the real mppx client paying with a viem account, configured as a wallet would be
 * (the tokens it pays from mppx's own asset table, or a custom token's EIP-712 domain), and hand-signed
 * EIP-3009 credentials whose fields can be broken one at a time.
 */
import { TOKEN_CONTRACT_DOMAINS } from "@svc/common/testing/fakes/x402";
import { Challenge, Credential } from "mppx";
import { evm as evmClient, Mppx as MppxClient } from "mppx/client";
import { assets, Types } from "mppx/evm";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

export function newAccount(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey());
}

export interface MppxClientOptions {
  /** Where its requests go: a route handler called directly; unset, over HTTP with the global fetch. */
  handler?: (request: Request) => Promise<Response>;
  /** A custom token's EIP-712 domain; unset, it pays USDC on Base or Base Sepolia as mppx's table has them. */
  authorization?: { name: string; version: string };
}

/** The real mppx client paying with `account`. */
export function mppxClient(account: LocalAccount, options: MppxClientOptions = {}) {
  const { handler, authorization } = options;
  const fetch = handler
    ? ((async (input: RequestInfo | URL, init?: RequestInit) =>
        handler(
          new Request(input instanceof Request ? input : new URL(String(input)), init),
        )) as typeof globalThis.fetch)
    : globalThis.fetch;
  return MppxClient.create({
    polyfill: false,
    fetch,
    methods: [
      evmClient.charge(
        authorization
          ? { account, authorization }
          : { account, currencies: [assets.base.USDC, assets.baseSepolia.USDC] },
      ),
    ],
  });
}

export interface AuthorizationOverrides {
  signer?: LocalAccount;
  from?: `0x${string}`;
  to?: `0x${string}`;
  value?: string;
  nonce?: `0x${string}`;
  validAfter?: string;
  validBefore?: string;
  chainId?: number;
  token?: `0x${string}`;
  /** Replaces the challenge (e.g. an edited `request`). */
  challenge?: Challenge.Challenge;
  /** The EIP-712 domain signed for; unset, the token contract's own (TOKEN_CONTRACT_DOMAINS). */
  domain?: { name: string; version: string };
}

type ChargeRequest = {
  amount: string;
  currency: `0x${string}`;
  recipient: `0x${string}`;
  methodDetails: { chainId: number };
};

/** A credential for the 402's challenge signed by `account`, with any field overridden. */
export async function signCredential(
  response: Response,
  account: LocalAccount,
  overrides: AuthorizationOverrides = {},
): Promise<string> {
  const issued = Challenge.fromResponse(response);
  const challenge = overrides.challenge ?? issued;
  const request = issued.request as unknown as ChargeRequest;
  const message = {
    from: overrides.from ?? account.address,
    to: overrides.to ?? request.recipient,
    value: BigInt(overrides.value ?? request.amount),
    validAfter: BigInt(overrides.validAfter ?? "0"),
    validBefore: BigInt(overrides.validBefore ?? String(Math.floor(Date.now() / 1000) + 600)),
    nonce: overrides.nonce ?? (Types.challengeHash(issued) as `0x${string}`),
  };
  const domain =
    overrides.domain ??
    TOKEN_CONTRACT_DOMAINS[`${request.methodDetails.chainId}:${request.currency.toLowerCase()}`];
  if (!domain) throw new Error(`no EIP-712 domain known for ${request.currency}: pass overrides.domain`);
  const signature = await (overrides.signer ?? account).signTypedData({
    domain: {
      ...domain,
      chainId: overrides.chainId ?? request.methodDetails.chainId,
      verifyingContract: overrides.token ?? request.currency,
    },
    types: Types.authorizationTypes,
    primaryType: "TransferWithAuthorization",
    message,
  });
  return Credential.serialize(
    Credential.from({
      challenge,
      payload: {
        type: "authorization",
        from: message.from,
        to: message.to,
        value: message.value.toString(),
        validAfter: message.validAfter.toString(),
        validBefore: message.validBefore.toString(),
        nonce: message.nonce,
        signature,
      },
    }),
  );
}
