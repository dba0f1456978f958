import type { ApiOperation } from "@svc/common/openapi/index";
import { jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
import {
  agentWalletSchema,
  makePaymentFields,
  paymentRecordSchema,
  paymentResultSchema,
  walletQuery,
} from "./inputs";

const postBody = z
  .object({
    action: z.enum(["create-wallet", "register-wallet", "make-payment"]),
    agentId: z.string(),
    companyId: z
      .string()
      .optional()
      .describe("create-wallet, register-wallet: the caller's label, 1 to 64 chars"),
    privateKey: z
      .string()
      .optional()
      .describe("register-wallet: 32-byte hex; stored encrypted, never returned"),
  })
  .extend(makePaymentFields.partial().omit({ agentId: true }).shape)
  .meta({ id: "AgentWalletAction" });

/** The agent wallet routes. */
export const walletsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/agent/mpp",
    summary:
      "Agent wallets: list-wallets, get-wallet, get-balance, list-payments (the ledger); no action: the index",
    tags: ["wallets"],
    auth: ["session", "apiKey"],
    scope: "wallets:read",
    query: walletQuery,
    success: {
      status: 200,
      description:
        "`{wallets}` | `{agentId, address}` | `{agentId, balance}` | `{payments}` | `{endpoints, policy}`",
      schema: z.union([
        z.object({ wallets: z.array(agentWalletSchema) }),
        z.object({ agentId: z.string(), address: z.string() }),
        z.object({ agentId: z.string(), balance: z.string() }),
        z.object({ payments: z.array(paymentRecordSchema) }),
        jsonObject,
      ]),
    },
    errors: {
      ...session,
      400: "`Invalid action`, or agentId missing",
      404: "wallet not found",
      500: "the balance could not be read",
    },
  },
  {
    method: "post",
    path: "/api/agent/mpp",
    summary: "create-wallet, register-wallet, or make-payment (pays an HTTP 402 with x402 v1/v2 or MPP)",
    tags: ["wallets"],
    auth: ["session", "apiKey"],
    scope: "wallets:write",
    body: postBody,
    success: {
      status: 200,
      description:
        "create: `{success, agentId, companyId, address, message}`; register: `{success, agentId, companyId, address}`; make-payment: `{success: true, result, payment}`",
      schema: z.union([
        paymentResultSchema,
        agentWalletSchema.extend({ success: z.literal(true), message: z.string().optional() }),
      ]),
    },
    errors: {
      ...session,
      400: "`agentId and companyId required`, `agentId, companyId, and privateKey required`, `url required`, `Invalid action`, a field that fails its rule (a privateKey that is not a secp256k1 key, a body without POST/PUT/PATCH/DELETE, a header HTTP does not allow), or a target URL the outbound guard refuses",
      402: "the payment was refused by the spending policy or the seller's offer is malformed (nothing signed), or not accepted by the seller",
      404: "agent or wallet not found",
      409: "the agent already has a wallet",
      500: "the target could not be reached, or wallets are not configured",
    },
  },
];
