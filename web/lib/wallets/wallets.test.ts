/**
 * /api/agent/mpp wallet actions against the real database and a loopback EVM JSON-RPC: create (viem key),
 * register (imported key), list, get, get-balance (`eth_call` balanceOf), the index, the fixed 400 messages
 * word for word, 404 for another user's agent or wallet, 409 for a second wallet, 401 without a session,
 * and the private key never in any response, database column in clear, or log line.
 */
import { decryptText, deriveKey } from "@svc/common";
import { startFakeEvmRpc } from "@svc/common/testing/fakes/evm-rpc";
import { agentWallets } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { privateKeyToAccount } from "viem/accounts";
import { afterAll, describe, expect, it } from "vitest";
import { GET, POST } from "@/app/api/agent/mpp/route";
import { deployTestAgent } from "../health/testing/agents";
import { webOpenApiDocument } from "../infra/openapi/document";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { captureProcessOutput } from "./testing";

const WALLET_KEY = "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90";
const TOKEN = "0x833589fcd6edb6e08f4c7c32d4f71b54bda02913";
const rpc = await startFakeEvmRpc();
useWebTestContext({
  WALLET_ENCRYPTION_KEY: WALLET_KEY,
  EVM_RPC_URL: rpc.url,
  AGENT_PAYMENT_TOKEN_ADDRESS: TOKEN,
  LOG_LEVEL: "trace",
});
afterAll(() => rpc.close());

const output = captureProcessOutput();

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
const post = (jar: Jar | undefined, json: unknown) =>
  call(POST, { method: "POST", path: "/api/agent/mpp", json, jar });
const get = (jar: Jar | undefined, query = "") => call(GET, { path: `/api/agent/mpp${query}`, jar });

async function userWithAgent() {
  const signedIn = await signedInUser();
  const agent = await deployTestAgent(signedIn.user.id, { url: null });
  return { ...signedIn, agent };
}

async function walletRows() {
  return (await webContext().db.execute(sql`select count(*)::int as n from agent_wallets`)).rows[0]
    .n as number;
}

describe("create-wallet and register-wallet", () => {
  it("create-wallet generates a key with viem, stores it encrypted, answers the address and never the key", async () => {
    const { user, jar, agent } = await userWithAgent();
    const res = await post(jar, { action: "create-wallet", agentId: agent.id, companyId: "acme" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(["address", "agentId", "companyId", "message", "success"]);
    expect(body).toMatchObject({ success: true, agentId: agent.id, companyId: "acme" });
    expect(body.address).toMatch(/^0x[0-9a-fA-F]{40}$/);
    expect(body.message).toContain(body.address);

    const [row] = await webContext().db.select().from(agentWallets).where(eq(agentWallets.userId, user.id));
    expect(row.encryptedPrivateKey).toMatch(/^v1\./);
    const key = decryptText(deriveKey(WALLET_KEY, "agent-wallet-private-key"), row.encryptedPrivateKey);
    expect(key).toMatch(/^0x[0-9a-f]{64}$/);
    expect(privateKeyToAccount(key as `0x${string}`).address).toBe(body.address);
    expect(JSON.stringify(body)).not.toContain(key.slice(2));
  });

  it("register-wallet imports a 32-byte hex key (with or without 0x); the key appears in no answer or log", async () => {
    const { jar, agent } = await userWithAgent();
    const key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
    const res = await post(jar, {
      action: "register-wallet",
      agentId: agent.id,
      companyId: "acme",
      privateKey: key,
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toEqual({
      success: true,
      agentId: agent.id,
      companyId: "acme",
      address: privateKeyToAccount(`0x${key}`).address,
    });
    const answers = [
      JSON.stringify(body),
      await (await get(jar, "?action=list-wallets")).text(),
      await (await get(jar, `?action=get-wallet&agentId=${agent.id}`)).text(),
      await (await get(jar)).text(),
    ];
    for (const text of [...answers, output.text()]) expect(text.toLowerCase()).not.toContain(key);
  });

  it("answers the spec's 400 messages word for word, and writes nothing", async () => {
    const { jar, agent } = await userWithAgent();
    const before = await walletRows();
    // The fixed words for missing fields (with `field` where there is one); the schema's in the form's words.
    const cases: [unknown, string, string?][] = [
      [{ action: "create-wallet", agentId: agent.id }, "agentId and companyId required"],
      [{ action: "create-wallet", companyId: "acme" }, "agentId and companyId required"],
      [{ action: "create-wallet", agentId: agent.id, companyId: "  " }, "agentId and companyId required"],
      [
        { action: "register-wallet", agentId: agent.id, companyId: "acme" },
        "agentId, companyId, and privateKey required",
      ],
      [{ action: "make-payment", agentId: agent.id }, "url required", "url"],
      [{ action: "transfer-everything" }, "Invalid action"],
      [{}, "Invalid action"],
      [
        { action: "register-wallet", agentId: agent.id, companyId: "acme", privateKey: "0x1234" },
        "Private key must be a 32-byte hex string",
        "privateKey",
      ],
      [
        { action: "create-wallet", agentId: agent.id, companyId: "x".repeat(65) },
        "Label must be 1 to 64 characters",
        "companyId",
      ],
    ];
    for (const [json, message, field] of cases) {
      const res = await post(jar, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(await res.json()).toEqual({
        error: message,
        code: "invalid_request",
        ...(field ? { field } : {}),
      });
    }
    const badGet = await get(jar, "?action=steal");
    expect(badGet.status).toBe(400);
    expect((await badGet.json()).error).toBe("Invalid action");
    expect(await walletRows()).toBe(before);
  });

  it("register-wallet: a key of 0 or past the secp256k1 order is a 400 and the key reaches no log line", async () => {
    const { jar, agent } = await userWithAgent();
    const before = await walletRows();
    const order = "fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141";
    const keys = ["0".repeat(64), `0x${order}`, order.toUpperCase(), "f".repeat(64)];
    for (const key of keys) {
      const res = await post(jar, {
        action: "register-wallet",
        agentId: agent.id,
        companyId: "acme",
        privateKey: key,
      });
      expect(res.status, key).toBe(400);
      expect(await res.json()).toEqual({
        error: "Private key is not a valid secp256k1 private key (1 to the curve order)",
        code: "invalid_request",
        field: "privateKey",
      });
    }
    const logged = output.text().toLowerCase();
    for (const key of keys) {
      const hex = key.toLowerCase().replace(/^0x/, "");
      expect(logged).not.toContain(hex);
      if (BigInt(`0x${hex}`) > 0n) expect(logged).not.toContain(BigInt(`0x${hex}`).toString());
    }
    expect(await walletRows()).toBe(before);
    // The largest key there is (order - 1) still registers.
    const last = (BigInt(`0x${order}`) - 1n).toString(16);
    const ok = await post(jar, {
      action: "register-wallet",
      agentId: agent.id,
      companyId: "acme",
      privateKey: last,
    });
    expect(ok.status).toBe(200);
    expect((await ok.json()).address).toBe(privateKeyToAccount(`0x${last}`).address);
  });

  it("404 for another user's agent (nothing written); 409 for a second wallet of one agent", async () => {
    const owner = await userWithAgent();
    const other = await signedInUser();
    const before = await walletRows();
    const stolen = await post(other.jar, {
      action: "create-wallet",
      agentId: owner.agent.id,
      companyId: "acme",
    });
    expect(stolen.status).toBe(404);
    expect(await stolen.json()).toEqual({ error: "agent not found", code: "agent_not_found" });
    expect(await walletRows()).toBe(before);
    expect(
      (await post(owner.jar, { action: "create-wallet", agentId: owner.agent.id, companyId: "acme" })).status,
    ).toBe(200);
    const again = await post(owner.jar, {
      action: "create-wallet",
      agentId: owner.agent.id,
      companyId: "acme",
    });
    expect(again.status).toBe(409);
    expect(await walletRows()).toBe(before + 1);
  });

  it("401 without a session, for reads and actions", async () => {
    expect((await get(undefined, "?action=list-wallets")).status).toBe(401);
    expect((await post(undefined, { action: "create-wallet", agentId: "a", companyId: "b" })).status).toBe(
      401,
    );
  });
});

describe("list-wallets, get-wallet, get-balance and the index", () => {
  it("lists only the caller's wallets; another user's wallet is 404 for get-wallet and get-balance", async () => {
    const a = await userWithAgent();
    const b = await userWithAgent();
    const created = await (
      await post(a.jar, { action: "create-wallet", agentId: a.agent.id, companyId: "one" })
    ).json();
    await post(b.jar, { action: "create-wallet", agentId: b.agent.id, companyId: "two" });
    expect(await (await get(a.jar, "?action=list-wallets")).json()).toEqual({
      wallets: [{ agentId: a.agent.id, companyId: "one", address: created.address }],
    });
    expect(await (await get(a.jar, `?action=get-wallet&agentId=${a.agent.id}`)).json()).toEqual({
      agentId: a.agent.id,
      address: created.address,
    });
    for (const action of ["get-wallet", "get-balance"]) {
      const res = await get(b.jar, `?action=${action}&agentId=${a.agent.id}`);
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "wallet not found", code: "wallet_not_found" });
    }
  });

  it("get-balance reads balanceOf by eth_call and answers a decimal string", async () => {
    const { jar, agent } = await userWithAgent();
    const { address } = await (
      await post(jar, { action: "create-wallet", agentId: agent.id, companyId: "c" })
    ).json();
    rpc.balances.set(`${TOKEN}:${address.toLowerCase()}`, 12_500_000n);
    const before = rpc.requests.length;
    const res = await get(jar, `?action=get-balance&agentId=${agent.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ agentId: agent.id, balance: "12.5" });
    const calls = rpc.requests.slice(before).map((r) => JSON.parse(r.body.toString()));
    expect(calls.every((c) => c.method === "eth_call" && c.params[0].to.toLowerCase() === TOKEN)).toBe(true);
    expect(calls.map((c) => c.params[0].data.slice(0, 10)).sort()).toEqual(["0x313ce567", "0x70a08231"]);
    rpc.failWith(503);
    try {
      const down = await get(jar, `?action=get-balance&agentId=${agent.id}`);
      expect(down.status).toBe(500);
      expect((await down.json()).error).toBe(
        "the wallet balance could not be read: the EVM RPC answered HTTP 503",
      );
    } finally {
      rpc.failWith(null);
    }
  });

  it("no action answers the index; get-wallet without agentId is a 400", async () => {
    const { jar } = await signedInUser();
    const index = await (await get(jar)).json();
    expect(Object.keys(index.endpoints)).toEqual(
      expect.arrayContaining(["GET ?action=list-wallets", "GET ?action=get-wallet&agentId=<id>"]),
    );
    expect(index.policy).toEqual({ maxPaymentUsd: "1.00", dailyCapUsd: "10.00" });
    const res = await get(jar, "?action=get-wallet");
    expect(res.status).toBe(400);
    expect((await res.json()).error).toBe("agentId required");
  });

  it("the OpenAPI document lists every action GET answers, list-payments included", async () => {
    const { jar, agent } = await userWithAgent();
    await post(jar, { action: "create-wallet", agentId: agent.id, companyId: "acme" });
    const params = (webOpenApiDocument().paths?.["/api/agent/mpp"]?.get?.parameters ?? []) as {
      name: string;
      schema?: { enum?: string[] };
    }[];
    const actions = params.find((p) => p.name === "action")?.schema?.enum;
    expect(actions).toEqual(["list-wallets", "get-wallet", "get-balance", "list-payments"]);
    for (const action of actions ?? []) {
      const answer = await get(jar, `?action=${action}&agentId=${agent.id}`);
      expect((await answer.json()).error, action).not.toBe("Invalid action");
    }
  });
});
