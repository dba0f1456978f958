/**
 * A loopback x402-style facilitator for MPP settlement: `POST /settle` with `{x402Version, paymentPayload,
 * paymentRequirements}`. Like the real thing it checks the EIP-3009 `transferWithAuthorization` signature
 * against the token's EIP-712 domain, the validity window and that the authorization pays the requirements,
 * and it refuses an authorization `(from, nonce)` already settled (as the token contract does); it answers
 * `{success, transaction, network, payer}` or `{success: false, errorReason}`. Records every settle request.
 */
import { randomBytes } from "node:crypto";
import { getAddress, recoverTypedDataAddress } from "viem";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeSettleRequest {
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
  /** Every settle request, in order, with its outcome. */
  settlements: FakeSettleRequest[];
  /** Refuse every settlement with this reason; null to settle again. */
  failWith(reason: string | null): void;
  close(): Promise<void>;
}

const authorizationTypes = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

interface Authorization {
  from: `0x${string}`;
  to: `0x${string}`;
  value: string;
  validAfter: string;
  validBefore: string;
  nonce: `0x${string}`;
}

export async function startFakeFacilitator(): Promise<FakeFacilitator> {
  const settlements: FakeSettleRequest[] = [];
  const used = new Set<string>();
  let failure: string | null = null;
  const upstream = await startFakeUpstream(async (req, res, raw) => {
    if (req.method !== "POST" || req.url !== "/settle") return sendJson(res, 404, { error: "not found" });
    let body: {
      paymentPayload?: { payload?: { authorization?: Authorization; signature?: `0x${string}` } };
      paymentRequirements?: {
        network?: string;
        asset?: `0x${string}`;
        payTo?: string;
        amount?: string;
        extra?: { name?: string; version?: string };
      };
    };
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, { success: false, errorReason: "invalid_json" });
    }
    const auth = body.paymentPayload?.payload?.authorization;
    const signature = body.paymentPayload?.payload?.signature;
    const requirements = body.paymentRequirements;
    if (!auth || !signature || !requirements?.asset || !requirements.network) {
      return sendJson(res, 400, { success: false, errorReason: "invalid_payload" });
    }
    const record: FakeSettleRequest = {
      from: auth.from,
      to: auth.to,
      value: auth.value,
      nonce: auth.nonce,
      network: requirements.network,
    };
    settlements.push(record);
    const refuse = (reason: string) => {
      record.errorReason = reason;
      sendJson(res, 200, {
        success: false,
        errorReason: reason,
        network: requirements.network,
        payer: auth.from,
      });
    };
    if (failure) return refuse(failure);
    const chainId = Number(requirements.network.replace(/^eip155:/, ""));
    let signer: string;
    try {
      signer = await recoverTypedDataAddress({
        domain: {
          name: requirements.extra?.name,
          version: requirements.extra?.version,
          chainId,
          verifyingContract: requirements.asset,
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
      });
    } catch {
      return refuse("invalid_exact_evm_payload_signature");
    }
    if (getAddress(signer) !== getAddress(auth.from)) return refuse("invalid_exact_evm_payload_signature");
    if (requirements.payTo && getAddress(requirements.payTo) !== getAddress(auth.to))
      return refuse("invalid_exact_evm_payload_recipient_mismatch");
    if (requirements.amount && requirements.amount !== auth.value)
      return refuse("invalid_exact_evm_payload_authorization_value");
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (BigInt(auth.validBefore) <= now)
      return refuse("invalid_exact_evm_payload_authorization_valid_before");
    const key = `${auth.from.toLowerCase()}:${auth.nonce.toLowerCase()}`;
    if (used.has(key)) return refuse("authorization_already_used");
    used.add(key);
    record.transaction = `0x${randomBytes(32).toString("hex")}`;
    return sendJson(res, 200, {
      success: true,
      transaction: record.transaction,
      network: requirements.network,
      payer: auth.from,
    });
  });
  return {
    url: upstream.url,
    upstream,
    settlements,
    failWith(reason) {
      failure = reason;
    },
    close: () => upstream.close(),
  };
}
