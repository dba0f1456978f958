import {
  BASE_SEPOLIA_USDC,
  BASE_USDC,
  type LostAnswer,
  startFakeX402Facilitator,
  TOKEN_CONTRACT_DOMAINS,
} from "@svc/common/testing/fakes/x402";
import { mppUsedNonces } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { Challenge } from "mppx";
import { Types } from "mppx/evm";
import { evm, Mppx } from "mppx/server";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/gateway/route";
import { useRunningServers } from "../../../common/testing/running-servers";
import { call, makeRequest, useWebTestContext, webContext } from "../infra/testing";
import { mppxClient, newAccount, signCredential } from "./mpp-support";
import { handleGatewayCall } from "./service";
import { startFakePlugin } from "./test-support";

const facilitator = await startFakeX402Facilitator();
const plugin = await startFakePlugin();
const MPP_SECRET = "mpp-test-secret-0123456789abcdef0123456789";
afterAll(async () => {
  await facilitator.close();
  await plugin.close();
});
afterEach(() => {
  facilitator.failWith(null);
  facilitator.loseSettleAnswers(null);
});

const body = { messages: [{ role: "user", content: "hi" }] };

/**
 * Issue #25 item 2: the real mppx client, over HTTP, against the real web server configured with each of the
 * documented chains and its USDC (MPP_TOKEN_NAME unset: the EIP-712 domain is the token's own). Base
 * Sepolia's USDC signs as "USDC", not mainnet's "USD Coin".
 */
const CHAINS = [
  { table: "Base", chainId: 8453, token: BASE_USDC, other: { chainId: 84532, token: BASE_SEPOLIA_USDC } },
  {
    table: "Base Sepolia",
    chainId: 84532,
    token: BASE_SEPOLIA_USDC,
    other: { chainId: 8453, token: BASE_USDC },
  },
];

describe.each(CHAINS)("MPP through the running web server: USDC on $table ($chainId)", (chain) => {
  const RECIPIENT = newAccount().address;
  const servers = useRunningServers({
    web: {
      GATEWAY_PLUGIN_AGENT_URL: plugin.url,
      GATEWAY_PLUGIN_TTS_URL: plugin.url,
      MPP_RECIPIENT: RECIPIENT,
      MPP_CHAIN_ID: String(chain.chainId),
      MPP_TOKEN_ADDRESS: chain.token,
      MPP_SECRET,
      MPP_FACILITATOR_URL: facilitator.url,
    },
  });
  const gatewayUrl = () => `${servers.web.url}/api/v1/gateway`;
  const gateway = (headers: Record<string, string> = {}, json: Record<string, unknown> = body) =>
    fetch(gatewayUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(json),
    });
  async function challenge402() {
    const res = await gateway({ "x-payment-method": "mpp" });
    expect(res.status).toBe(402);
    return res;
  }
  const ownDomain = TOKEN_CONTRACT_DOMAINS[`${chain.chainId}:${chain.token.toLowerCase()}`];
  /** The other USDC's EIP-712 domain: the right signer and fields, the wrong token name for this chain. */
  const otherDomain = TOKEN_CONTRACT_DOMAINS[`${chain.other.chainId}:${chain.other.token.toLowerCase()}`];

  it("the 402 carries the spec's body and a WWW-Authenticate that mppx's challenge parser reads", async () => {
    const res = await challenge402();
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const header = res.headers.get("www-authenticate") ?? "";
    expect(header.startsWith(`Payment amount=0.05, currency=USD, recipient=${RECIPIENT}, id="`)).toBe(true);
    for (const part of ['method="evm"', 'intent="charge"', "realm=", "request=", "expires="]) {
      expect(header).toContain(part);
    }
    const parsed = Challenge.fromResponse(res.clone());
    expect(parsed).toMatchObject({
      method: "evm",
      intent: "charge",
      realm: new URL(servers.web.url).host,
      description: "gateway plugin agent",
      request: {
        amount: "50000",
        currency: chain.token,
        recipient: RECIPIENT,
        methodDetails: { chainId: chain.chainId, decimals: 6, credentialTypes: ["authorization"] },
      },
    });
    expect(await res.json()).toEqual({
      error: "payment_required",
      message: expect.any(String),
      mpp: {
        scheme: "Payment",
        amount: "0.05",
        currency: "USD",
        recipient: RECIPIENT,
        description: "gateway plugin agent",
        nonce: Types.challengeHash(parsed),
        expiresAt: Date.parse(parsed.expires as string),
      },
      stripe: { checkoutUrl: "/api/v1/payments/card/create?plugin=agent", amount: "0.05", currency: "usd" },
    });
  });

  it("the card path's 402 offers MPP too", async () => {
    const res = await gateway();
    expect(res.status).toBe(402);
    expect((await res.json()).mpp.amount).toBe("0.05");
    expect(res.headers.get("www-authenticate")).toMatch(/^Payment amount=0\.05, /);
  });

  it("the real mppx client pays the 402 and gets the plugin's answer with the settlement's hash", async () => {
    const account = newAccount();
    const settledBefore = facilitator.settlements.length;
    const callsBefore = plugin.calls.length;
    const res = await mppxClient(account).fetch(gatewayUrl(), {
      method: "POST",
      headers: { "content-type": "application/json", "x-payment-method": "mpp" },
      body: JSON.stringify(body),
    });
    expect(await res.json()).toEqual({ plugin: "agent", echo: { ...body, max_tokens: 4096 } });
    expect(res.status).toBe(200);
    expect(facilitator.settlements.length).toBe(settledBefore + 1);
    const settlement = facilitator.settlements.at(-1);
    expect(settlement).toMatchObject({
      from: account.address,
      to: RECIPIENT,
      value: "50000",
      network: `eip155:${chain.chainId}`,
      transaction: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    expect(res.headers.get("payment-receipt")).toBe(settlement?.transaction);
    expect(res.headers.get("x-plugin-id")).toBe("agent");
    expect(plugin.calls.length).toBe(callsBefore + 1);
  });

  it("Authorization: Payment alone selects MPP", async () => {
    const credential = await signCredential(await challenge402(), newAccount());
    const res = await gateway({ authorization: credential });
    expect(res.status).toBe(200);
    expect(res.headers.get("payment-receipt")).toMatch(/^0x[0-9a-f]{64}$/);
  });

  it("a credential pays once: 10 copies at once settle once and are served once", async () => {
    const credential = await signCredential(await challenge402(), newAccount());
    const settledBefore = facilitator.settlements.length;
    const callsBefore = plugin.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => gateway({ "x-payment-method": "mpp", authorization: credential })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(1);
    expect(statuses.filter((s) => s === 402)).toHaveLength(9);
    expect(facilitator.settlements.length).toBe(settledBefore + 1);
    expect(plugin.calls.length).toBe(callsBefore + 1);
    const refused = await answers.find((r) => r.status === 402)?.json();
    expect(refused.message).toContain("already used");
    // ... and later, too.
    const again = await gateway({ "x-payment-method": "mpp", authorization: credential });
    expect(again.status).toBe(402);
    expect(facilitator.settlements.length).toBe(settledBefore + 1);
  });

  it("a settlement the facilitator refuses serves nothing and frees the credential's claim", async () => {
    const account = newAccount();
    const credential = await signCredential(await challenge402(), account);
    const callsBefore = plugin.calls.length;
    facilitator.failWith("insufficient_funds");
    const res = await gateway({ authorization: credential });
    expect(res.status).toBe(402);
    expect((await res.json()).message).toContain("insufficient_funds");
    expect(plugin.calls.length).toBe(callsBefore);
    const claims = await webContext()
      .db.select()
      .from(mppUsedNonces)
      .where(eq(mppUsedNonces.payer, account.address.toLowerCase()));
    expect(claims).toEqual([]);
  });

  describe("a hand-signed credential with one broken field → 402, no settlement, no plugin call", () => {
    const other = newAccount();
    const cases: [string, (res: Response) => Promise<string>][] = [
      ["signer", async (res) => signCredential(res, newAccount(), { signer: other })],
      ["amount", async (res) => signCredential(res, newAccount(), { value: "40000" })],
      ["recipient", async (res) => signCredential(res, newAccount(), { to: other.address })],
      ["token", async (res) => signCredential(res, newAccount(), { token: other.address })],
      ["chain", async (res) => signCredential(res, newAccount(), { chainId: chain.other.chainId })],
      [
        "EIP-712 name (the other USDC's)",
        async (res) => signCredential(res, newAccount(), { domain: otherDomain }),
      ],
      [
        "EIP-712 version",
        async (res) => signCredential(res, newAccount(), { domain: { ...ownDomain, version: "1" } }),
      ],
      ["nonce", async (res) => signCredential(res, newAccount(), { nonce: `0x${"ab".repeat(32)}` })],
      [
        "expiry (validBefore passed)",
        async (res) =>
          signCredential(res, newAccount(), { validBefore: String(Math.floor(Date.now() / 1000) - 60) }),
      ],
      [
        "not yet valid (validAfter ahead)",
        async (res) =>
          signCredential(res, newAccount(), { validAfter: String(Math.floor(Date.now() / 1000) + 600) }),
      ],
      [
        "an edited request",
        async (res) => {
          const issued = Challenge.fromResponse(res.clone());
          const edited = { ...issued, request: { ...issued.request, amount: "1" } } as typeof issued;
          return signCredential(res, newAccount(), { challenge: edited, value: "1" });
        },
      ],
      [
        "an expired challenge",
        async () => {
          const server = Mppx.create({
            secretKey: MPP_SECRET,
            realm: new URL(servers.web.url).host,
            methods: [
              evm.charge({
                currency: chain.token as `0x${string}`,
                recipient: RECIPIENT,
                chainId: chain.chainId,
                decimals: 6,
                authorization: ownDomain,
                settle: async () => ({ reference: "0x" }),
              }),
            ],
          });
          const expired = await server.challenge.evm.charge({
            amount: "0.05",
            description: "gateway plugin agent",
            scope: "gateway:agent",
            expires: new Date(Date.now() - 1000).toISOString(),
          });
          const header = `Payment amount=0.05, currency=USD, recipient=${RECIPIENT}, ${Challenge.serialize(expired).slice(8)}`;
          return signCredential(
            new Response(null, { status: 402, headers: { "www-authenticate": header } }),
            newAccount(),
          );
        },
      ],
      [
        "another plugin's challenge (scope)",
        async () =>
          signCredential(
            await gateway({ "x-payment-method": "mpp" }, { plugin: "tts", text: "hi" }),
            newAccount(),
          ),
      ],
      ["garbage", async () => "Payment not-a-credential"],
    ];

    it.each(cases)("%s", async (_name, make) => {
      const credential = await make(await challenge402());
      const settledBefore = facilitator.settlements.length;
      const callsBefore = plugin.calls.length;
      const res = await gateway({ "x-payment-method": "mpp", authorization: credential });
      expect(res.status).toBe(402);
      const answer = await res.json();
      expect(answer.error).toBe("payment_required");
      expect(answer.mpp.nonce).toMatch(/^0x[0-9a-f]{64}$/);
      expect(res.headers.get("www-authenticate")).toMatch(/^Payment amount=0\.05, currency=USD, /);
      expect(facilitator.settlements.length).toBe(settledBefore);
      expect(plugin.calls.length).toBe(callsBefore);
    });
  });
});

/**
 * A token outside mppx's asset table, its EIP-712 domain given by MPP_TOKEN_NAME/MPP_TOKEN_VERSION; and what
 * needs a configuration changed per test (the facilitator's timeout and address), through the route handler.
 */
const CUSTOM_TOKEN = "0x00000000000000000000000000000000000c0FFE";
const CUSTOM_DOMAIN = { name: "Test Dollar", version: "1" };
const CUSTOM_RECIPIENT = newAccount().address;
const { config } = useWebTestContext({
  GATEWAY_PLUGIN_AGENT_URL: plugin.url,
  MPP_RECIPIENT: CUSTOM_RECIPIENT,
  MPP_CHAIN_ID: "84532",
  MPP_TOKEN_ADDRESS: CUSTOM_TOKEN,
  MPP_TOKEN_NAME: CUSTOM_DOMAIN.name,
  MPP_TOKEN_VERSION: CUSTOM_DOMAIN.version,
  MPP_SECRET,
  MPP_FACILITATOR_URL: facilitator.url,
});

function gatewayHandler(headers: Record<string, string> = {}) {
  return call(POST, { method: "POST", path: "/api/v1/gateway", json: body, headers });
}
async function customChallenge402() {
  const res = await gatewayHandler({ "x-payment-method": "mpp" });
  expect(res.status).toBe(402);
  return res;
}
const signCustom = async (account = newAccount()) =>
  signCredential(await customChallenge402(), account, { domain: CUSTOM_DOMAIN });

describe("MPP: a token outside mppx's table", () => {
  it("the real mppx client pays with the domain MPP_TOKEN_NAME/MPP_TOKEN_VERSION give; another name is refused", async () => {
    const account = newAccount();
    const settledBefore = facilitator.settlements.length;
    const res = await mppxClient(account, { handler: POST, authorization: CUSTOM_DOMAIN }).fetch(
      "http://localhost:3000/api/v1/gateway",
      {
        method: "POST",
        headers: { "content-type": "application/json", "x-payment-method": "mpp" },
        body: JSON.stringify(body),
      },
    );
    expect(res.status).toBe(200);
    expect(facilitator.settlements.length).toBe(settledBefore + 1);
    expect(res.headers.get("payment-receipt")).toBe(facilitator.settlements.at(-1)?.transaction);

    const wrongName = await signCredential(await customChallenge402(), newAccount(), {
      domain: { ...CUSTOM_DOMAIN, name: "USD Coin" },
    });
    const refused = await gatewayHandler({ authorization: wrongName });
    expect(refused.status).toBe(402);
    expect((await refused.json()).message).toContain("signature mismatch");
    expect(facilitator.settlements.length).toBe(settledBefore + 1);
  });

  it("503 naming MPP_RECIPIENT when MPP has no recipient", async () => {
    const ctx = { ...webContext(), config: { ...config, MPP_RECIPIENT: undefined } };
    const answer = await handleGatewayCall(
      ctx,
      makeRequest({
        method: "POST",
        path: "/api/v1/gateway",
        json: body,
        headers: { "x-payment-method": "mpp" },
      }),
    ).catch((err: unknown) => err);
    expect(answer).toMatchObject({ status: 503, message: expect.stringContaining("MPP_RECIPIENT") });
  });
});

describe("MPP: a settlement whose answer is lost keeps the claim: 5xx payment_settlement_unknown", () => {
  const FACILITATOR_TIMEOUT_MS = 300;
  const shortTimeout = (overrides: Partial<typeof config> = {}) => ({
    ...webContext(),
    config: { ...config, MPP_FACILITATOR_TIMEOUT_MS: FACILITATOR_TIMEOUT_MS, ...overrides },
  });
  const pay = (ctx: ReturnType<typeof shortTimeout>, credential: string) =>
    handleGatewayCall(
      ctx,
      makeRequest({
        method: "POST",
        path: "/api/v1/gateway",
        json: body,
        headers: { authorization: credential },
      }),
    ).catch((err: unknown) => err);
  const claimsOf = (payer: string) =>
    webContext().db.select().from(mppUsedNonces).where(eq(mppUsedNonces.payer, payer.toLowerCase()));

  it.each([
    ["answers after the timeout (504)", { lateMs: 1_500 }, 504],
    ["drops the connection (502)", "drop", 502],
    ["answers 500 (502)", "error", 502],
  ] as [string, LostAnswer, number][])(
    "the facilitator settles, then %s: claim kept, the plugin not called, a retry not settled again",
    async (_, lost, status) => {
      const account = newAccount();
      const credential = await signCustom(account);
      const ctx = shortTimeout();
      const settledBefore = facilitator.settlements.length;
      const callsBefore = plugin.calls.length;
      facilitator.loseSettleAnswers(lost);
      const failure = await pay(ctx, credential);
      expect(failure).toMatchObject({ status, code: "payment_settlement_unknown" });
      expect((failure as Error).message).toContain("may have gone through");
      expect((failure as Error).message).toContain("will not charge it twice");
      // The transfer did happen: the payer paid, and the claim stays so it is never settled again.
      expect(facilitator.settlements.length).toBe(settledBefore + 1);
      expect(facilitator.settlements.at(-1)?.transaction).toMatch(/^0x/);
      expect(plugin.calls.length).toBe(callsBefore);
      const claims = await claimsOf(account.address);
      expect(claims).toHaveLength(1);
      expect(claims[0].txHash).toBeNull();

      // The same credential again, once the first settlement is past its timeout: not settled again, and the
      // answer says its outcome is unknown (not a 402 inviting a new payment).
      facilitator.loseSettleAnswers(null);
      await new Promise((resolve) => setTimeout(resolve, FACILITATOR_TIMEOUT_MS + 50));
      const retry = await pay(ctx, credential);
      expect(retry).toMatchObject({ status: 502, code: "payment_settlement_unknown" });
      expect(facilitator.settlements.length).toBe(settledBefore + 1);
      expect(plugin.calls.length).toBe(callsBefore);
      expect(await claimsOf(account.address)).toHaveLength(1);
    },
  );

  it("a facilitator that cannot be connected to got nothing: the claim is freed, 402", async () => {
    const account = newAccount();
    const credential = await signCustom(account);
    const closed = await startFakeX402Facilitator();
    await closed.close();
    const answer = await pay(shortTimeout({ MPP_FACILITATOR_URL: closed.url }), credential);
    expect(answer).toBeInstanceOf(Response);
    if (!(answer instanceof Response)) return;
    expect(answer.status).toBe(402);
    expect((await answer.json()).message).toContain("connection refused");
    expect(await claimsOf(account.address)).toHaveLength(0);
    // Freed: the same credential pays once the facilitator is back.
    const paid = await pay(shortTimeout(), credential);
    expect(paid).toBeInstanceOf(Response);
    expect((paid as Response).status).toBe(200);
  });
});
