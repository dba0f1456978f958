/**
 * make-payment against loopback sellers speaking the real protocols: x402 v1 and v2 (with a facilitator that
 * checks the EIP-3009 signature) and MPP (mppx server). Each protocol is paid once and the paid retry's
 * answer comes back; the spending policy refuses before signing (per-payment cap, networks, assets,
 * recipients) and the daily cap holds under 10 parallel payments; the outbound guard refuses loopback,
 * private targets and a redirect to a private address; every attempt is in the ledger.
 */
import { deriveKey, encryptText } from "@svc/common";
import { sendJson, startFakeUpstream } from "@svc/common/testing";
import { MPP_SELLER_RECIPIENT, startFakeMppSeller } from "@svc/common/testing/fakes/mpp-seller";
import {
  BASE_SEPOLIA_USDC,
  SELLER_PAY_TO,
  startFakeX402Facilitator,
  startFakeX402Seller,
} from "@svc/common/testing/fakes/x402";
import { agentPayments, agentWallets } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/agent/mpp/route";
import { deployTestAgent } from "../health/testing/agents";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { captureProcessOutput } from "./testing";

const WALLET_KEY = "0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e";
const facilitator = await startFakeX402Facilitator();
const v1 = await startFakeX402Seller({ version: 1, facilitatorUrl: facilitator.url });
const v2 = await startFakeX402Seller({ version: 2, facilitatorUrl: facilitator.url });
const mpp = await startFakeMppSeller();
/** Another origin (another port) the sellers may redirect to, and a seller whose 402 each test writes. */
const elsewhere = await startFakeUpstream((_req, res) => sendJson(res, 200, { elsewhere: true }));
const oddSeller = await startFakeUpstream((_req, res) => sendJson(res, 500, { error: "no handler" }));
useWebTestContext({
  WALLET_ENCRYPTION_KEY: WALLET_KEY,
  OUTBOUND_ALLOW_HOSTS: "localhost",
  AGENT_PAYMENT_MAX_USD: "0.05",
  AGENT_PAYMENT_DAILY_USD: "0.05",
  LOG_LEVEL: "error",
});
afterAll(async () => {
  await Promise.all([
    v1.close(),
    v2.close(),
    mpp.close(),
    facilitator.close(),
    elsewhere.close(),
    oddSeller.close(),
  ]);
});

const output = captureProcessOutput();
beforeEach(() => {
  v1.options.amount = "10000";
  v2.options.amount = "10000";
  v2.options.network = "eip155:84532";
  v2.options.asset = BASE_SEPOLIA_USDC;
  v2.options.payTo = SELLER_PAY_TO;
  v1.options.redirectPaidTo = null;
  v2.options.redirectPaidTo = null;
  mpp.amount = "0.01";
});

/** The fakes listen on 127.0.0.1; addressed as `localhost` (the allowed host) they pass the guard. */
const viaLocalhost = (url: string) => url.replace("127.0.0.1", "localhost");
type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
const post = (jar: Jar, json: unknown) => call(POST, { method: "POST", path: "/api/agent/mpp", json, jar });

async function payer() {
  const signedIn = await signedInUser();
  const agent = await deployTestAgent(signedIn.user.id, { url: null });
  const created = await (
    await post(signedIn.jar, { action: "create-wallet", agentId: agent.id, companyId: "acme" })
  ).json();
  return { ...signedIn, agent, address: created.address as string };
}
async function ledgerOf(userId: string, agentId: string) {
  return webContext()
    .db.select()
    .from(agentPayments)
    .where(and(eq(agentPayments.userId, userId), eq(agentPayments.agentId, agentId)));
}

describe("make-payment pays each protocol once", () => {
  it("x402 v2: PAYMENT-REQUIRED, one signed PAYMENT-SIGNATURE, the paid answer, the ledger row", async () => {
    const { user, jar, agent, address } = await payer();
    const settledBefore = facilitator.settlements.length;
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(v2.url)}/report?q=1`,
      method: "POST",
      headers: { "x-agent": "scout" },
      body: { topic: "weather" },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.success).toBe(true);
    expect(body.result).toMatchObject({
      status: 200,
      body: { data: "the paid content", path: "/report", method: "POST" },
    });
    expect(body.result.headers["payment-response"]).toBeTruthy();
    const settled = facilitator.settlements.slice(settledBefore);
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      from: address,
      to: SELLER_PAY_TO,
      value: "10000",
      network: "eip155:84532",
    });
    const sent = v2.requests.slice(-2);
    expect(sent[0].headers["payment-signature"]).toBeUndefined();
    expect(sent[1].headers["payment-signature"]).toBeTruthy();
    expect(sent[1].headers["x-agent"]).toBe("scout");
    expect(JSON.parse(sent[1].body.toString())).toEqual({ topic: "weather" });
    const rows = await ledgerOf(user.id, agent.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      protocol: "x402-v2",
      outcome: "paid",
      network: "eip155:84532",
      asset: BASE_SEPOLIA_USDC.toLowerCase(),
      recipient: SELLER_PAY_TO,
      amountMicroUsd: 10_000n,
      reference: settled[0].transaction,
      status: 200,
      host: new URL(viaLocalhost(v2.url)).host,
    });
    expect(body.payment).toMatchObject({ id: rows[0].id, amountUsd: "0.01", outcome: "paid" });
  });

  it("x402 v1: the 402 JSON body, one X-PAYMENT, settled on base-sepolia", async () => {
    const { user, jar, agent, address } = await payer();
    const settledBefore = facilitator.settlements.length;
    const paidBefore = v1.paid;
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(v1.url)}/v1-thing`,
    });
    expect(res.status).toBe(200);
    expect((await res.json()).result.body).toEqual({
      data: "the paid content",
      path: "/v1-thing",
      method: "GET",
    });
    expect(v1.paid).toBe(paidBefore + 1);
    const settled = facilitator.settlements.slice(settledBefore);
    expect(settled).toEqual([
      expect.objectContaining({ from: address, network: "base-sepolia", value: "10000" }),
    ]);
    expect(v1.requests.at(-1)?.headers["x-payment"]).toBeTruthy();
    const [row] = await ledgerOf(user.id, agent.id);
    expect(row).toMatchObject({ protocol: "x402-v1", network: "eip155:84532", outcome: "paid" });
    expect(row.reference).toBe(settled[0].transaction);
  });

  it("MPP: WWW-Authenticate: Payment, one credential, the Payment-Receipt reference", async () => {
    const { user, jar, agent, address } = await payer();
    const before = mpp.settlements.length;
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(mpp.url)}/song`,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.result).toMatchObject({ status: 200, body: { data: "the paid content", path: "/song" } });
    const settled = mpp.settlements.slice(before);
    expect(settled).toEqual([
      { from: address, value: "10000", reference: expect.stringMatching(/^0x[0-9a-f]{64}$/) },
    ]);
    const [row] = await ledgerOf(user.id, agent.id);
    expect(row).toMatchObject({
      protocol: "mpp",
      outcome: "paid",
      recipient: MPP_SELLER_RECIPIENT,
      network: "eip155:84532",
      reference: settled[0].reference,
      amountMicroUsd: 10_000n,
    });
  });

  it("a redirect on the allowed host is followed, checked again, and the resource it leads to paid", async () => {
    const { user, jar, agent } = await payer();
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(v2.url)}/redirect?to=/missing`,
    });
    // The redirect is followed (same host, checked again); the seller then asks for payment of /missing.
    expect(res.status).toBe(200);
    expect((await res.json()).result.body.path).toBe("/missing");
    expect(await ledgerOf(user.id, agent.id)).toHaveLength(1);
  });
});

describe("what make-payment cannot send, and offers it cannot read", () => {
  it("a paid retry redirected to another origin reaches it without the payment or the caller's credentials", async () => {
    const { jar, agent } = await payer();
    const settledBefore = facilitator.settlements.length;
    for (const [seller, header] of [
      [v2, "payment-signature"],
      [v1, "x-payment"],
    ] as const) {
      seller.options.redirectPaidTo = `${viaLocalhost(elsewhere.url)}/landing`;
      const before = elsewhere.requests.length;
      const res = await post(jar, {
        action: "make-payment",
        agentId: agent.id,
        url: `${viaLocalhost(seller.url)}/report`,
        method: "POST",
        headers: { authorization: "Bearer caller-secret", cookie: "sid=caller-cookie", "x-agent": "scout" },
        body: { topic: "weather" },
      });
      expect(res.status, header).toBe(200);
      expect((await res.json()).result.body).toEqual({ elsewhere: true });
      // The seller got the signed retry; the other origin got the request (a 307 keeps method and body) bare.
      expect(seller.requests.at(-1)?.headers[header]).toBeTruthy();
      const landed = elsewhere.requests.slice(before);
      expect(landed.map((r) => [r.method, r.path, r.body.toString()])).toEqual([
        ["POST", "/landing", '{"topic":"weather"}'],
      ]);
      expect(landed[0].headers["x-agent"]).toBe("scout");
      for (const name of ["payment-signature", "x-payment", "authorization", "cookie"])
        expect(landed[0].headers[name], name).toBeUndefined();
    }
    expect(facilitator.settlements.length).toBe(settledBefore);
  });

  it("a body with GET, or a header HTTP refuses: 400 naming the rule, nothing sent, nothing recorded", async () => {
    const { user, jar, agent } = await payer();
    const before = v2.requests.length;
    const url = `${viaLocalhost(v2.url)}/x`;
    const cases: [Record<string, unknown>, string, string][] = [
      [{ body: { a: 1 } }, "Body needs method POST, PUT, PATCH, DELETE (method is GET)", "body"],
      [{ method: "get", body: {} }, "Body needs method POST, PUT, PATCH, DELETE (method is GET)", "body"],
      [{ headers: { "a b": "x" } }, 'Headers: "a b" is not a valid header name', "headers"],
      [{ headers: { "": "x" } }, 'Headers: "" is not a valid header name', "headers"],
      [
        { headers: { "x-token": "secret\r\nx-injected: 1" } },
        "Headers: the value of x-token has a character HTTP does not allow (a line break, a control character or a non-Latin-1 character)",
        "headers",
      ],
      [
        { headers: { "x-note": "€" } },
        "Headers: the value of x-note has a character HTTP does not allow (a line break, a control character or a non-Latin-1 character)",
        "headers",
      ],
    ];
    for (const [fields, message, field] of cases) {
      const res = await post(jar, { action: "make-payment", agentId: agent.id, url, ...fields });
      expect(res.status, JSON.stringify(fields)).toBe(400);
      const body = await res.json();
      expect(body).toEqual({ error: message, code: "invalid_request", field });
      expect(JSON.stringify(body)).not.toContain("secret");
    }
    expect(v2.requests.length).toBe(before);
    expect(await ledgerOf(user.id, agent.id)).toEqual([]);
  });

  it("a malformed x402 offer is a 402 naming what is wrong, with its ledger row, and nothing signed", async () => {
    const { user, jar, agent } = await payer();
    const settledBefore = facilitator.settlements.length;
    const option = {
      scheme: "exact",
      network: "eip155:84532",
      asset: BASE_SEPOLIA_USDC,
      payTo: SELLER_PAY_TO,
      amount: "10000",
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2" },
    };
    const v2Offer = (accepts: unknown) =>
      Buffer.from(JSON.stringify({ x402Version: 2, resource: { url: "x" }, accepts })).toString("base64");
    const { asset: _asset, ...withoutAsset } = option;
    const cases: [(res: import("node:http").ServerResponse) => void, string][] = [
      [
        (res) => sendJson(res, 402, { x402Version: 1, error: "pay" }),
        "it has no list of payment options (accepts)",
      ],
      [
        (res) => {
          res.writeHead(402, { "payment-required": v2Offer([withoutAsset]) });
          res.end("{}");
        },
        "option 1 has no asset",
      ],
      [
        (res) => {
          res.writeHead(402, { "payment-required": v2Offer([{ ...option, amount: "1.5" }]) });
          res.end("{}");
        },
        "option 1's amount is not a whole number of atomic units (at most 40 digits)",
      ],
      [
        (res) => {
          const { payTo: _payTo, amount: _amount, ...v1Option } = option;
          sendJson(res, 402, { x402Version: 1, accepts: [{ ...v1Option, maxAmountRequired: "10000" }] });
        },
        "option 1 has no payTo",
      ],
      // A seller's numbers and names are bounded before they are read, named or recorded.
      [
        (res) => {
          const { amount: _amount, ...v1Option } = option;
          const maxAmountRequired = "9".repeat(1_000_000);
          sendJson(res, 402, { x402Version: 1, accepts: [{ ...v1Option, maxAmountRequired }] });
        },
        "option 1's maxAmountRequired is not a whole number of atomic units (at most 40 digits)",
      ],
      [
        (res) => {
          res.writeHead(402, {
            "payment-required": v2Offer([{ ...option, asset: `0x${"a".repeat(5000)}` }]),
          });
          res.end("{}");
        },
        "option 1's asset is longer than 128 characters",
      ],
    ];
    for (const [answer, reason] of cases) {
      oddSeller.setHandler((_req, res) => answer(res));
      const before = oddSeller.requests.length;
      const res = await post(jar, {
        action: "make-payment",
        agentId: agent.id,
        url: `${viaLocalhost(oddSeller.url)}/odd`,
      });
      expect(res.status, reason).toBe(402);
      const body = await res.json();
      expect(body).toMatchObject({
        error: `payment failed: the seller's payment offer is malformed: ${reason}`,
        code: "payment_failed",
      });
      const rows = await ledgerOf(user.id, agent.id);
      const row = rows.find((r) => r.id === body.paymentId);
      expect(row).toMatchObject({
        outcome: "refused",
        reason: `the seller's payment offer is malformed: ${reason}`,
        signedAt: null,
      });
      // Asked once; no signed retry.
      expect(oddSeller.requests.length).toBe(before + 1);
    }
    expect(await ledgerOf(user.id, agent.id)).toHaveLength(cases.length);
    expect(facilitator.settlements.length).toBe(settledBefore);
  });
});

describe("the spending policy refuses before anything is signed", () => {
  it("over the per-payment cap, another network, another asset: 402 naming the reason, nothing settled", async () => {
    const { user, jar, agent } = await payer();
    const settledBefore = facilitator.settlements.length;
    const paidBefore = v2.paid;
    const cases: [() => void, string][] = [
      [
        () => (v2.options.amount = "60000"),
        "payment failed: 0.06 USD is over the per-payment cap of 0.05 USD",
      ],
      [
        () => (v2.options.network = "eip155:1"),
        "payment failed: network eip155:1 is not allowed (allowed: eip155:8453, eip155:84532)",
      ],
      [
        () => (v2.options.asset = "0x1111111111111111111111111111111111111111"),
        "payment failed: asset 0x1111111111111111111111111111111111111111 is not allowed",
      ],
    ];
    for (const [arrange, message] of cases) {
      v2.options.amount = "10000";
      v2.options.network = "eip155:84532";
      v2.options.asset = BASE_SEPOLIA_USDC;
      arrange();
      const before = v2.requests.length;
      const res = await post(jar, {
        action: "make-payment",
        agentId: agent.id,
        url: `${viaLocalhost(v2.url)}/x`,
      });
      expect(res.status).toBe(402);
      const body = await res.json();
      expect(body).toMatchObject({ error: message, code: "payment_failed" });
      // One unpaid request, no second (signed) one.
      expect(v2.requests.slice(before).map((r) => r.headers["payment-signature"])).toEqual([undefined]);
    }
    expect(facilitator.settlements.length).toBe(settledBefore);
    expect(v2.paid).toBe(paidBefore);
    const rows = await ledgerOf(user.id, agent.id);
    expect(rows.map((r) => r.outcome)).toEqual(["refused", "refused", "refused"]);
    expect(rows.every((r) => r.signedAt === null)).toBe(true);
  });

  it("an MPP amount longer than any real price is a malformed offer: a short refusal, nothing signed", async () => {
    const { user, jar, agent } = await payer();
    mpp.amount = "9".repeat(2000);
    const before = mpp.settlements.length;
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(mpp.url)}/song`,
    });
    expect(res.status).toBe(402);
    const reason =
      "the seller's payment offer is malformed: its amount is not a whole number of atomic units (at most 40 digits)";
    expect((await res.json()).error).toBe(`payment failed: ${reason}`);
    expect(await ledgerOf(user.id, agent.id)).toEqual([
      expect.objectContaining({ outcome: "refused", reason, signedAt: null }),
    ]);
    expect(mpp.settlements.length).toBe(before);
  });

  it("the MPP per-payment cap refuses before a credential is made", async () => {
    const { jar, agent } = await payer();
    mpp.amount = "0.06";
    const before = mpp.settlements.length;
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(mpp.url)}/song`,
    });
    expect(res.status).toBe(402);
    expect((await res.json()).error).toBe("payment failed: 0.06 USD is over the per-payment cap of 0.05 USD");
    expect(mpp.settlements.length).toBe(before);
  });

  it("the daily cap holds under 10 parallel payments: exactly 5 of 0.01 fit in 0.05", async () => {
    const { user, jar, agent } = await payer();
    const settledBefore = facilitator.settlements.length;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        post(jar, { action: "make-payment", agentId: agent.id, url: `${viaLocalhost(v2.url)}/item/${i}` }),
      ),
    );
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 200, 200, 402, 402, 402, 402, 402]);
    for (const res of answers.filter((r) => r.status === 402))
      expect((await res.json()).error).toMatch(/^payment failed: the daily cap of 0.05 USD would be passed/);
    expect(facilitator.settlements.length - settledBefore).toBe(5);
    const rows = await ledgerOf(user.id, agent.id);
    expect(rows.filter((r) => r.outcome === "paid")).toHaveLength(5);
    expect(rows.filter((r) => r.outcome === "refused")).toHaveLength(5);
    // Another agent of the same user has its own cap.
    const second = await deployTestAgent(user.id, { url: null });
    await post(jar, { action: "create-wallet", agentId: second.id, companyId: "acme" });
    const fresh = await post(jar, {
      action: "make-payment",
      agentId: second.id,
      url: `${viaLocalhost(v2.url)}/z`,
    });
    expect(fresh.status).toBe(200);
  });
});

describe("the outbound guard refuses internal targets, every hop", () => {
  it("loopback, private and link-local addresses, and a redirect to a private address: 400, nothing paid", async () => {
    const { user, jar, agent } = await payer();
    const before = v2.requests.length;
    const cases: [string, string][] = [
      [`${v2.url}/paid`, "URL is not allowed: refused to fetch 127.0.0.1: loopback address"],
      ["http://10.0.0.7/paid", "URL is not allowed: refused to fetch 10.0.0.7: private address"],
      [
        "http://169.254.169.254/latest/meta-data",
        "URL is not allowed: refused to fetch 169.254.169.254: link-local address",
      ],
      ["file:///etc/passwd", "URL is not allowed: only http and https URLs can be fetched (got file)"],
      [
        `${viaLocalhost(v2.url)}/redirect?to=${encodeURIComponent("http://192.168.1.20/admin")}`,
        "URL is not allowed: refused to fetch 192.168.1.20: private address",
      ],
      [
        `${viaLocalhost(v2.url)}/redirect?to=${encodeURIComponent(`${v2.url}/paid`)}`,
        "URL is not allowed: refused to fetch 127.0.0.1: loopback address",
      ],
    ];
    for (const [url, message] of cases) {
      const res = await post(jar, { action: "make-payment", agentId: agent.id, url });
      expect(res.status, url).toBe(400);
      expect(await res.json()).toEqual({ error: message, code: "url_refused", field: "url" });
    }
    // Only the two redirecting requests reached the seller; nothing was paid or recorded.
    expect(v2.requests.slice(before).map((r) => r.path.split("?")[0])).toEqual(["/redirect", "/redirect"]);
    expect(await ledgerOf(user.id, agent.id)).toEqual([]);
  });

  it("another user's agent wallet is 404 and its key signs nothing", async () => {
    const owner = await payer();
    const other = await signedInUser();
    const settledBefore = facilitator.settlements.length;
    const res = await post(other.jar, {
      action: "make-payment",
      agentId: owner.agent.id,
      url: `${viaLocalhost(v2.url)}/x`,
    });
    expect(res.status).toBe(404);
    expect(facilitator.settlements.length).toBe(settledBefore);
  });
});

describe("the ledger and the keys", () => {
  it("list-payments shows the caller's attempts only, newest first", async () => {
    const a = await payer();
    const b = await payer();
    await post(a.jar, { action: "make-payment", agentId: a.agent.id, url: `${viaLocalhost(v2.url)}/one` });
    v2.options.amount = "90000";
    await post(b.jar, { action: "make-payment", agentId: b.agent.id, url: `${viaLocalhost(v2.url)}/two` });
    const listed = await (
      await call(GET, { path: "/api/agent/mpp?action=list-payments", jar: a.jar })
    ).json();
    expect(listed.payments).toEqual([
      expect.objectContaining({
        agentId: a.agent.id,
        protocol: "x402-v2",
        outcome: "paid",
        amountUsd: "0.01",
      }),
    ]);
    const theirs = await (
      await call(GET, { path: "/api/agent/mpp?action=list-payments", jar: b.jar })
    ).json();
    expect(theirs.payments).toEqual([expect.objectContaining({ outcome: "refused", amountUsd: "0.09" })]);
  });

  it("a key that does not open is a logged 500 whose log line carries no key, and nothing is signed", async () => {
    const { user, jar } = await signedInUser();
    const agent = await deployTestAgent(user.id, { url: null });
    const key = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    // Sealed under another secret (a rotated WALLET_ENCRYPTION_KEY).
    await webContext()
      .db.insert(agentWallets)
      .values({
        userId: user.id,
        agentId: agent.id,
        companyId: "acme",
        address: privateKeyToAccount(key).address,
        encryptedPrivateKey: encryptText(deriveKey("f".repeat(64), "agent-wallet-private-key"), key),
      });
    const settledBefore = facilitator.settlements.length;
    const res = await post(jar, {
      action: "make-payment",
      agentId: agent.id,
      url: `${viaLocalhost(v2.url)}/x`,
    });
    expect(res.status).toBe(500);
    const body = await res.json();
    expect(body).toEqual({ error: "internal server error", code: "internal", requestId: expect.any(String) });
    const logged = output.text();
    expect(logged).toContain(body.requestId);
    expect(logged).not.toContain(key.slice(2));
    expect(facilitator.settlements.length).toBe(settledBefore);
  });
});
