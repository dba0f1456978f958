/**
 * Test support for MPP: an mppx client paying with a viem account (the real client, its fetch routed to a
 * route handler), and hand-signed EIP-3009 credentials whose fields can be broken one at a time.
 */
import { Challenge, Credential } from "mppx";
import { evm as evmClient, Mppx as MppxClient } from "mppx/client";
import { Types } from "mppx/evm";
import type { LocalAccount } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

export const TEST_TOKEN = { name: "USD Coin", version: "2" } as const;

export function newAccount(): LocalAccount {
  return privateKeyToAccount(generatePrivateKey());
}

/** The real mppx client paying with `account`; its fetch calls `handler` (a route handler) directly. */
export function mppxClient(account: LocalAccount, handler: (request: Request) => Promise<Response>) {
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) =>
    handler(
      new Request(input instanceof Request ? input : new URL(String(input)), init),
    )) as typeof globalThis.fetch;
  return MppxClient.create({
    polyfill: false,
    fetch,
    methods: [evmClient.charge({ account, authorization: TEST_TOKEN })],
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
  const signature = await (overrides.signer ?? account).signTypedData({
    domain: {
      ...TEST_TOKEN,
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
