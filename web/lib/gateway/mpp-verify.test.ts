/**
 * `verifyMppCredential` checks a credential as mppx 0.11's own `validateCredential` does (issue 27 moved the
 * checks into billing/mpp.ts to make them cheaper): every credential below — valid, or broken in one field,
 * one binding or one encoding — is accepted by both or refused by both with the same reason. In process, no
 * network: this is the verification step alone (mpp.test.ts covers it through the running server).
 */
import { Challenge, Credential, PaymentRequest } from "mppx";
import { Types } from "mppx/evm";
import { describe, expect, it } from "vitest";
import { useWebTestContext } from "../infra/testing";
import { type MppCharge, mppChallenge, mppServer, verifyMppCredential } from "./billing/mpp";
import { type AuthorizationOverrides, newAccount, signCredential } from "./mpp-support";
import { microsToUsd } from "./pricing";

const MPP_ENV = {
  MPP_RECIPIENT: newAccount().address,
  MPP_CHAIN_ID: "84532",
  MPP_TOKEN_ADDRESS: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  MPP_SECRET: "mpp-verify-secret-0123456789abcdef0123456789",
  MPP_FACILITATOR_URL: "http://127.0.0.1:9",
};
const { config } = useWebTestContext(MPP_ENV);
const AGENT: MppCharge = { micros: 50_000n, description: "gateway plugin agent", scope: "gateway:agent" };
const TTS: MppCharge = { micros: 30_000n, description: "gateway plugin tts", scope: "gateway:tts" };
const DEPOSIT: MppCharge = {
  micros: 2_500_000n,
  description: "payment session deposit",
  scope: "wallet:session",
};

async function offer(charge: MppCharge = AGENT, cfg = config): Promise<Response> {
  const { wwwAuthenticate } = await mppChallenge(cfg, charge);
  return new Response(null, { status: 402, headers: { "www-authenticate": wwwAuthenticate } });
}
const sign = async (overrides: AuthorizationOverrides = {}, charge: MppCharge = AGENT) =>
  signCredential(await offer(charge), newAccount(), overrides);

/** Re-encodes a credential after `edit` (mppx's own serializer: the wire form a client could send). */
function edited(credential: string, edit: (c: Credential.Credential<Record<string, unknown>>) => unknown) {
  const parsed = Credential.deserialize<Record<string, unknown>>(credential);
  return Credential.serialize(edit(parsed) as Credential.Credential);
}

/** What ours and mppx's validateCredential say about `credential` for `charge`: "accepted" or the reason. */
async function verdicts(credential: string, charge: MppCharge = AGENT, cfg = config) {
  const reason = (err: unknown) => (err instanceof Error ? err.message : String(err));
  const ours = await verifyMppCredential(cfg, credential, charge).then(() => "accepted", reason);
  const amount = microsToUsd(charge.micros);
  const theirs = await Promise.resolve()
    .then(() =>
      mppServer(cfg).validateCredential(Credential.deserialize(credential), {
        request: { amount },
        scope: charge.scope,
      }),
    )
    .then(() => "accepted", reason);
  return { ours, theirs };
}

describe("verifyMppCredential decides as mppx's validateCredential", () => {
  it("valid credentials for plugin prices and a deposit are accepted, with the payer and the nonce", async () => {
    for (const charge of [AGENT, TTS, DEPOSIT]) {
      const account = newAccount();
      const credential = signCredential(await offer(charge), account);
      expect(await verdicts(await credential, charge)).toEqual({ ours: "accepted", theirs: "accepted" });
      const verified = await verifyMppCredential(config, await credential, charge);
      expect(verified.payer).toBe(account.address.toLowerCase());
      expect(verified.nonce).toBe(Types.challengeHash(Credential.deserialize(await credential).challenge));
    }
  });

  const other = newAccount();
  const past = () => String(Math.floor(Date.now() / 1000) - 60);
  const ahead = () => String(Math.floor(Date.now() / 1000) + 600);
  const cases: [string, () => Promise<string>, MppCharge?][] = [
    ["another signer", () => sign({ signer: other })],
    ["amount", () => sign({ value: "40000" })],
    ["recipient", () => sign({ to: other.address })],
    ["token (EIP-712 verifying contract)", () => sign({ token: other.address })],
    ["chain (EIP-712 chain id)", () => sign({ chainId: 8453 })],
    ["EIP-712 name", () => sign({ domain: { name: "USD Coin", version: "2" } })],
    ["EIP-712 version", () => sign({ domain: { name: "USDC", version: "1" } })],
    ["nonce", () => sign({ nonce: `0x${"ab".repeat(32)}` })],
    ["nonce in upper case", async () => edited(await sign(), (c) => upperNonce(c))],
    ["validBefore passed", () => sign({ validBefore: past() })],
    ["validAfter ahead", () => sign({ validAfter: ahead() })],
    ["another plugin's challenge (scope and price)", () => sign({}, TTS)],
    ["the agent's challenge offered for the tts price", () => sign(), TTS],
    ["same scope, another price", () => sign(), { ...AGENT, micros: 60_000n }],
    [
      "an edited request (HMAC)",
      async () => {
        const res = await offer();
        const issued = Challenge.fromResponse(res.clone());
        const request = { ...issued.request, amount: "1" };
        return signCredential(res, newAccount(), { challenge: { ...issued, request }, value: "1" });
      },
    ],
    [
      "a tampered challenge id",
      async () => edited(await sign(), (c) => withChallenge(c, { id: "x".repeat(43) })),
    ],
    [
      "the scope rewritten in opaque (HMAC)",
      async () =>
        edited(await sign(), (c) =>
          withChallenge(c, { opaque: PaymentRequest.serialize({ _mppx_scope: "gateway:tts" }) }),
        ),
    ],
    [
      "an expired challenge",
      async () => {
        const expired = await mppServer(config).challenge.evm.charge({
          amount: "0.05",
          description: AGENT.description,
          scope: AGENT.scope,
          expires: new Date(Date.now() - 1000).toISOString(),
        });
        const header = `Payment ${Challenge.serialize(expired).slice(8)}`;
        return signCredential(
          new Response(null, { status: 402, headers: { "www-authenticate": header } }),
          newAccount(),
        );
      },
    ],
    [
      "a challenge of this server with other data beside the scope (opaque binding)",
      async () => {
        const challenge = await mppServer(config).challenge.evm.charge({
          amount: "0.05",
          description: AGENT.description,
          scope: AGENT.scope,
          meta: { order: "42" },
        });
        const header = `Payment ${Challenge.serialize(challenge).slice(8)}`;
        return signCredential(
          new Response(null, { status: 402, headers: { "www-authenticate": header } }),
          newAccount(),
        );
      },
    ],
    [
      "a payload without its type",
      async () => edited(await sign(), (c) => withPayload(c, { type: undefined })),
    ],
    [
      "a payload of another type",
      async () => edited(await sign(), (c) => withPayload(c, { type: "transaction" })),
    ],
    ["a short signature", async () => edited(await sign(), (c) => withPayload(c, { signature: "0x1234" }))],
    [
      "v 29",
      async () =>
        edited(await sign(), (c) =>
          withPayload(c, { signature: `${String(c.payload.signature).slice(0, 130)}1d` }),
        ),
    ],
    ["a value with a sign", async () => edited(await sign(), (c) => withPayload(c, { value: "+50000" }))],
    [
      "a from that is not an address",
      async () => edited(await sign(), (c) => withPayload(c, { from: "0x1234" })),
    ],
    [
      "its own source",
      async () => {
        const account = newAccount();
        const credential = await signCredential(await offer(), account);
        return edited(credential, (c) => ({
          ...c,
          source: Types.toSource({ address: account.address, chainId: 84532 }),
        }));
      },
    ],
    [
      "another source",
      async () => edited(await sign(), (c) => ({ ...c, source: `did:pkh:eip155:84532:${other.address}` })),
    ],
    ["not base64url JSON", async () => "Payment not-a-credential"],
    ["another scheme", async () => "Bearer abc"],
  ];

  it.each(cases)("%s: the same verdict and reason", async (_name, make, charge = AGENT) => {
    const credential = await make();
    const { ours, theirs } = await verdicts(credential, charge);
    expect(ours).toBe(theirs);
    if (_name !== "its own source") expect(ours).not.toBe("accepted");
  });

  it("a validBefore past uint256 (it cannot be signed): both refuse, each in its encoder's words", async () => {
    const credential = edited(await sign(), (c) => withPayload(c, { validBefore: (2n ** 256n).toString() }));
    const { ours, theirs } = await verdicts(credential);
    expect(theirs).toContain("is not in safe 256-bit unsigned integer range");
    expect(ours).toContain("is not in the uint256 range");
  });

  it("a challenge issued before the configuration changed (recipient, realm) is refused by both", async () => {
    const credential = await sign();
    for (const change of [
      { MPP_RECIPIENT: newAccount().address },
      { PUBLIC_URL: "https://pay.example.com" },
    ]) {
      const changed = { ...config, ...change };
      const { ours, theirs } = await verdicts(credential, AGENT, changed);
      expect(ours).toBe(theirs);
      expect(ours).toContain("does not match this route's requirements");
    }
  });
});

function withChallenge(c: Credential.Credential<Record<string, unknown>>, fields: Record<string, unknown>) {
  return { ...c, challenge: { ...c.challenge, ...fields } };
}
function withPayload(c: Credential.Credential<Record<string, unknown>>, fields: Record<string, unknown>) {
  return { ...c, payload: { ...c.payload, ...fields } };
}
function upperNonce(c: Credential.Credential<Record<string, unknown>>) {
  return withPayload(c, { nonce: `0x${String(c.payload.nonce).slice(2).toUpperCase()}` });
}
