/**
 * Loopback x402 parties for tests and benches, speaking the real wire formats of @x402/core 2.x:
 * - the one fake facilitator (`POST /verify`, `POST /settle` with `{x402Version, paymentPayload,
 *   paymentRequirements}`), used by the x402 sellers below and by the gateway's MPP settlement. Like the real
 *   thing it checks the EIP-3009 `TransferWithAuthorization` signature against the requirements' EIP-712
 *   domain (name, version, chain, asset), the validity window, that the authorization pays the requirements
 *   (recipient, exact amount) and that its `(from, nonce)` was never settled before (as the token contract
 *   does). `/verify` answers `{isValid, payer}` or `{isValid: false, invalidReason, payer?}`; `/settle`
 *   answers `{success, transaction, network, payer}` or `{success: false, errorReason, transaction: "",
 *   network, payer}`. A settlement is also checked against the EIP-712 domain the token contract itself has
 *   (TOKEN_CONTRACT_DOMAINS), as the chain does when it runs `transferWithAuthorization`: an authorization
 *   signed for another domain is refused even when the requirements' `extra` named that domain.
 *   It records every settle request with its outcome; `failWith(reason)` refuses
 *   everything with that reason; `loseSettleAnswers(mode)` settles but then answers late (`{lateMs}`), drops
 *   the connection without answering (`"drop"`) or answers 500 (`"error"`): the transfer happened, the
 *   caller never learns it.
 * - a seller of one paid resource, in protocol v1 (402 JSON body, `X-PAYMENT`, `X-PAYMENT-RESPONSE`) or v2
 *   (`PAYMENT-REQUIRED`, `PAYMENT-SIGNATURE`, `PAYMENT-RESPONSE`), which verifies and settles every payment
 *   with the facilitator before it answers. `/redirect?to=<url>` answers a 302 to `to`; with `redirectPaidTo`
 *   set, a request carrying a payment is answered with a 307 to that URL instead (nothing verified or settled).
 */
import type { IncomingMessage } from "node:http";
import { authorizationTypes } from "@x402/evm";
import { getEvmChainIdV1 } from "@x402/evm/v1";
import { type Address, getAddress, type Hex, keccak256, verifyTypedData } from "viem";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

/** Base Sepolia USDC: the test sellers' default asset. */
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";
export const SELLER_PAY_TO = "0x2222222222222222222222222222222222222222";
/** USDC on Base (mainnet). */
export const BASE_USDC = "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913";

/**
 * The EIP-712 domain each token contract on chain has (`<chainId>:<address>`, lower case), written down from
 * the chains, not from any client's table: Circle's USDC is "USD Coin" on Base but "USDC" on Base Sepolia.
 */
export const TOKEN_CONTRACT_DOMAINS: Record<string, { name: string; version: string }> = {
  [`8453:${BASE_USDC.toLowerCase()}`]: { name: "USD Coin", version: "2" },
  [`84532:${BASE_SEPOLIA_USDC.toLowerCase()}`]: { name: "USDC", version: "2" },
};

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
  /** v2. */
  amount?: string;
  /** v1. */
  maxAmountRequired?: string;
  extra?: { name?: string; version?: string };
}

/** One settle request that carried an authorization, with its outcome: `transaction` or `errorReason`. */
export interface FakeSettlement {
  from: string;
  to: string;
  value: string;
  nonce: string;
  network: string;
  transaction?: string;
  errorReason?: string;
}

export interface FakeFacilitator {
  url: string;
  upstream: FakeUpstream;
  requests: FakeUpstream["requests"];
  /** Every settle request, in order, with its outcome (refused ones carry `errorReason`, no `transaction`). */
  settlements: FakeSettlement[];
  /** Refuse every verification and settlement with this reason; null to accept again. */
  failWith(reason: string | null): void;
  /** Settle, then lose the answer: send it after `lateMs`, drop the connection, or answer 500; null to answer. */
  loseSettleAnswers(mode: LostAnswer | null): void;
  close(): Promise<void>;
}

/** How a settled request's answer is lost (see FakeFacilitator.loseSettleAnswers). */
export type LostAnswer = { lateMs: number } | "drop" | "error";

const chainIdOf = (network: string) =>
  network.startsWith("eip155:") ? Number(network.slice(7)) : getEvmChainIdV1(network as never);

interface FacilitatorBody {
  paymentPayload?: { payload?: { authorization?: Authorization; signature?: Hex } };
  paymentRequirements?: Requirements;
}

export async function startFakeX402Facilitator(): Promise<FakeFacilitator> {
  const settled = new Set<string>();
  const settlements: FakeSettlement[] = [];
  let failure: string | null = null;
  let lost: LostAnswer | null = null;
  const keyOf = (auth: Authorization) => `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;

  const signedFor = (
    auth: Authorization,
    signature: Hex,
    req: Requirements,
    domain: { name?: string; version?: string },
  ) =>
    verifyTypedData({
      address: getAddress(auth.from),
      domain: {
        name: domain.name,
        version: domain.version,
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

  /** The reason to refuse this authorization, or null when it pays the requirements. */
  const refusal = async (auth: Authorization, signature: Hex, req: Requirements): Promise<string | null> => {
    if (failure) return failure;
    if (!(await signedFor(auth, signature, req, req.extra ?? {}))) return "invalid_exact_evm_signature";
    // What the token contract checks when the transfer runs: its own domain, whatever `extra` said.
    const contract = TOKEN_CONTRACT_DOMAINS[`${chainIdOf(req.network)}:${req.asset.toLowerCase()}`];
    if (contract && !(await signedFor(auth, signature, req, contract))) return "invalid_exact_evm_signature";
    if (getAddress(auth.to) !== getAddress(req.payTo)) return "invalid_exact_evm_recipient_mismatch";
    const required = req.amount ?? req.maxAmountRequired;
    if (required !== undefined && BigInt(auth.value) !== BigInt(required))
      return "invalid_exact_evm_payload_authorization_value_mismatch";
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (BigInt(auth.validBefore) <= now) return "invalid_exact_evm_payload_authorization_valid_before";
    if (BigInt(auth.validAfter) > now) return "invalid_exact_evm_payload_authorization_valid_after";
    if (settled.has(keyOf(auth))) return "invalid_exact_evm_nonce_already_used";
    return null;
  };

  const upstream = await startFakeUpstream(async (req, res, raw) => {
    const path = req.url?.split("?")[0];
    if (req.method !== "POST" || (path !== "/verify" && path !== "/settle"))
      return sendJson(res, 404, { error: "not found" });
    const bad = (reason: string) =>
      sendJson(
        res,
        400,
        path === "/verify"
          ? { isValid: false, invalidReason: reason }
          : { success: false, errorReason: reason },
      );
    let body: FacilitatorBody;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return bad("invalid_json");
    }
    const auth = body.paymentPayload?.payload?.authorization;
    const signature = body.paymentPayload?.payload?.signature;
    const requirements = body.paymentRequirements;
    if (!auth || !signature || !requirements?.asset || !requirements.network || !requirements.payTo)
      return bad("invalid_payload");
    const network = requirements.network;

    if (path === "/verify") {
      const reason = await refusal(auth, signature, requirements);
      return sendJson(
        res,
        200,
        reason === null
          ? { isValid: true, payer: auth.from }
          : { isValid: false, invalidReason: reason, payer: auth.from },
      );
    }

    const record: FakeSettlement = {
      from: auth.from,
      to: auth.to,
      value: auth.value,
      nonce: auth.nonce,
      network,
    };
    settlements.push(record);
    const reason = await refusal(auth, signature, requirements);
    // Checked again after the await: of two copies settled at once, one only gets through.
    if (reason === null && !settled.has(keyOf(auth))) {
      settled.add(keyOf(auth));
      record.transaction = keccak256(signature);
      const mode = lost;
      if (mode === "drop") return void res.socket?.destroy();
      if (mode === "error") return sendJson(res, 500, { error: "internal error after broadcasting" });
      if (mode) await new Promise((resolve) => setTimeout(resolve, mode.lateMs));
      return sendJson(res, 200, {
        success: true,
        transaction: record.transaction,
        network,
        payer: auth.from,
      });
    }
    record.errorReason = reason ?? "invalid_exact_evm_nonce_already_used";
    return sendJson(res, 200, {
      success: false,
      errorReason: record.errorReason,
      transaction: "",
      network,
      payer: auth.from,
    });
  });
  return {
    url: upstream.url,
    upstream,
    requests: upstream.requests,
    settlements,
    failWith(reason) {
      failure = reason;
    },
    loseSettleAnswers(mode) {
      lost = mode;
    },
    close: () => upstream.close(),
  };
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
  /** Send the paid retry elsewhere (a 307 to this URL) instead of settling it; null (the default) settles. */
  redirectPaidTo?: string | null;
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
    redirectPaidTo: null,
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
    if (terms.redirectPaidTo) {
      res.writeHead(307, { location: terms.redirectPaidTo });
      return void res.end();
    }
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
