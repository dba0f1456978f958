/**
 * Loopback x402 parties for tests and benches, speaking the real wire formats of @x402/core 2.x:
 * - a facilitator (`POST /verify`, `POST /settle`) that checks the EIP-3009 `TransferWithAuthorization`
 *   signature against the requirements' EIP-712 domain (name, version, chain, asset), the recipient, the
 *   amount, the validity window and that the nonce was never settled before;
 * - a seller of one paid resource, in protocol v1 (402 JSON body, `X-PAYMENT`, `X-PAYMENT-RESPONSE`) or v2
 *   (`PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE`, `PAYMENT-RESPONSE`), which verifies and settles every payment
 *   with the facilitator before it answers. `/redirect?to=<url>` answers a 302 to `to`.
 */
import type { IncomingMessage } from "node:http";
import { authorizationTypes } from "@x402/evm";
import { getEvmChainIdV1 } from "@x402/evm/v1";
import { type Address, getAddress, type Hex, keccak256, verifyTypedData } from "viem";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

/** Base Sepolia USDC: the test sellers' default asset. */
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const SELLER_PAY_TO = "0x2222222222222222222222222222222222222222";

interface Authorization {
  from: Address;
  to: Address;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: Hex;
}

interface Requirements {
  scheme: string;
  network: string;
  asset: string;
  payTo: string;
  amount?: string;
  maxAmountRequired?: string;
  extra?: { name?: string; version?: string };
}

export interface FakeFacilitator {
  url: string;
  requests: FakeUpstream["requests"];
  /** Settled payments, in order. */
  settlements: { payer: string; to: string; value: string; network: string; transaction: string }[];
  close(): Promise<void>;
}

const chainIdOf = (network: string) =>
  network.startsWith("eip155:") ? Number(network.slice(7)) : getEvmChainIdV1(network as never);

export async function startFakeX402Facilitator(): Promise<FakeFacilitator> {
  const settledNonces = new Set<string>();
  const settlements: FakeFacilitator["settlements"] = [];

  const check = async (body: {
    paymentPayload: { payload: { authorization: Authorization; signature: Hex } };
    paymentRequirements: Requirements;
  }): Promise<{ ok: true; auth: Authorization } | { ok: false; reason: string; payer?: string }> => {
    const { authorization: auth, signature } = body.paymentPayload.payload;
    const req = body.paymentRequirements;
    const required = BigInt(req.amount ?? req.maxAmountRequired ?? "0");
    if (getAddress(auth.to) !== getAddress(req.payTo)) return { ok: false, reason: "invalid_recipient" };
    if (BigInt(auth.value) < required) return { ok: false, reason: "insufficient_amount" };
    if (BigInt(auth.validBefore) <= BigInt(Math.floor(Date.now() / 1000)))
      return { ok: false, reason: "expired" };
    if (settledNonces.has(auth.nonce)) return { ok: false, reason: "nonce_already_used" };
    const valid = await verifyTypedData({
      address: auth.from,
      domain: {
        name: req.extra?.name,
        version: req.extra?.version,
        chainId: chainIdOf(req.network),
        verifyingContract: getAddress(req.asset),
      },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: getAddress(auth.from),
        to: getAddress(auth.to),
        value: BigInt(auth.value),
        validAfter: BigInt(auth.validAfter),
        validBefore: BigInt(auth.validBefore),
        nonce: auth.nonce,
      },
      signature,
    }).catch(() => false);
    if (!valid) return { ok: false, reason: "invalid_signature", payer: auth.from };
    return { ok: true, auth };
  };

  const upstream = await startFakeUpstream(async (req, res, raw) => {
    const body = JSON.parse(raw.toString("utf8"));
    const result = await check(body);
    if (req.url === "/verify") {
      return sendJson(
        res,
        200,
        result.ok
          ? { isValid: true, payer: result.auth.from }
          : { isValid: false, invalidReason: result.reason },
      );
    }
    if (req.url === "/settle") {
      const network = body.paymentRequirements.network as string;
      if (!result.ok)
        return sendJson(res, 200, { success: false, errorReason: result.reason, transaction: "", network });
      settledNonces.add(result.auth.nonce);
      const transaction = keccak256(body.paymentPayload.payload.signature);
      settlements.push({
        payer: result.auth.from,
        to: result.auth.to,
        value: result.auth.value,
        network,
        transaction,
      });
      return sendJson(res, 200, { success: true, transaction, network, payer: result.auth.from });
    }
    sendJson(res, 404, { error: "not found" });
  });
  return { url: upstream.url, requests: upstream.requests, settlements, close: () => upstream.close() };
}

export interface FakeX402SellerOptions {
  version: 1 | 2;
  facilitatorUrl: string;
  /** Atomic amount (USDC has 6 decimals: "10000" is $0.01). */
  amount?: string;
  asset?: string;
  payTo?: string;
  /** v2 CAIP-2 network, or the v1 name (`base-sepolia`). */
  network?: string;
}

export interface FakeX402Seller {
  url: string;
  requests: FakeUpstream["requests"];
  /** Requests answered 200 after a settled payment. */
  paid: number;
  /** Change the price or terms of the next offers. */
  options: Required<FakeX402SellerOptions>;
  close(): Promise<void>;
}

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64");
const unb64 = (value: string) => JSON.parse(Buffer.from(value, "base64").toString("utf8"));

export async function startFakeX402Seller(options: FakeX402SellerOptions): Promise<FakeX402Seller> {
  const terms: Required<FakeX402SellerOptions> = {
    amount: "10000",
    asset: BASE_SEPOLIA_USDC,
    payTo: SELLER_PAY_TO,
    network: options.version === 1 ? "base-sepolia" : "eip155:84532",
    ...options,
  };
  const seller: FakeX402Seller = {
    url: "",
    requests: [],
    paid: 0,
    options: terms,
    close: async () => undefined,
  };
  const offer = (resource: string): Requirements & Record<string, unknown> => {
    const common = {
      scheme: "exact",
      network: terms.network,
      asset: terms.asset,
      payTo: terms.payTo,
      maxTimeoutSeconds: 60,
      extra: { name: "USDC", version: "2" },
    };
    return terms.version === 1
      ? {
          ...common,
          maxAmountRequired: terms.amount,
          resource,
          description: "a paid test resource",
          mimeType: "application/json",
          outputSchema: {},
        }
      : { ...common, amount: terms.amount };
  };
  const facilitate = async (path: "/verify" | "/settle", payload: unknown, requirements: unknown) => {
    const response = await fetch(`${terms.facilitatorUrl}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        x402Version: terms.version,
        paymentPayload: payload,
        paymentRequirements: requirements,
      }),
    });
    return (await response.json()) as {
      isValid?: boolean;
      success?: boolean;
      invalidReason?: string;
      errorReason?: string;
    };
  };

  const upstream = await startFakeUpstream(async (req: IncomingMessage, res) => {
    const url = new URL(req.url ?? "/", "http://seller");
    if (url.pathname === "/redirect") {
      res.writeHead(302, { location: url.searchParams.get("to") ?? "/" });
      return void res.end();
    }
    const resource = `${seller.url}${url.pathname}`;
    const requirements = offer(resource);
    const header = (name: string) => req.headers[name.toLowerCase()] as string | undefined;
    const sent = terms.version === 1 ? header("X-PAYMENT") : header("PAYMENT-SIGNATURE");
    const askForPayment = (error: string) => {
      if (terms.version === 1) return sendJson(res, 402, { x402Version: 1, error, accepts: [requirements] });
      res.writeHead(402, {
        "content-type": "application/json",
        "PAYMENT-REQUIRED": b64({
          x402Version: 2,
          error,
          resource: { url: resource, description: "a paid test resource", mimeType: "application/json" },
          accepts: [requirements],
        }),
      });
      res.end("{}");
    };
    if (!sent) return askForPayment("payment required");
    const payload = unb64(sent);
    const verified = await facilitate("/verify", payload, requirements);
    if (!verified.isValid) return askForPayment(verified.invalidReason ?? "invalid payment");
    const settled = (await facilitate("/settle", payload, requirements)) as {
      success: boolean;
      errorReason?: string;
      transaction?: string;
      network?: string;
      payer?: string;
    };
    if (!settled.success) return askForPayment(settled.errorReason ?? "settlement failed");
    seller.paid++;
    const receipt = b64({
      success: true,
      transaction: settled.transaction,
      network: settled.network,
      payer: settled.payer,
    });
    const body = JSON.stringify({ data: "the paid content", path: url.pathname, method: req.method });
    res.writeHead(200, {
      "content-type": "application/json",
      [terms.version === 1 ? "X-PAYMENT-RESPONSE" : "PAYMENT-RESPONSE"]: receipt,
    });
    res.end(body);
  });
  seller.url = upstream.url;
  seller.requests = upstream.requests;
  seller.close = () => upstream.close();
  return seller;
}
