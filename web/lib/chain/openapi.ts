import type { ApiOperation } from "@svc/common/openapi/index";
import { z } from "zod";
import { session } from "../infra/openapi/responses";
import {
  l1AddressQuery,
  l1PriceSchema,
  l1VerifySchema,
  l1WalletSchema,
  rpcConfigBody,
  rpcConfigSchema,
} from "./inputs";

/** The chain routes. */
export const chainOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/l1/price",
    summary: "The L1 coin's USD price, 24 h change, market cap and 24 h volume (cached 60 s)",
    tags: ["chain"],
    auth: ["none"],
    success: { status: 200, description: "each figure a number or null", schema: l1PriceSchema },
    errors: { 500: "the market data provider failed" },
  },
  {
    method: "get",
    path: "/api/l1/wallet",
    summary: "An address's SOL balance, top 20 tokens and account info, via the caller's RPC URL",
    tags: ["chain"],
    auth: ["session", "apiKey"],
    scope: "chain:read",
    query: l1AddressQuery,
    success: { status: 200, description: "the wallet", schema: l1WalletSchema },
    errors: { ...session, 400: "bad address", 500: "the RPC failed or was refused" },
  },
  {
    method: "get",
    path: "/api/l1/verify",
    summary: "An address's platform token balance and the holder tiers it qualifies for",
    tags: ["chain"],
    auth: ["none"],
    query: l1AddressQuery,
    success: {
      status: 200,
      description: "balance, eligibility, benefits, all tiers",
      schema: l1VerifySchema,
    },
    errors: { 400: "bad address", 502: "the RPC failed" },
  },
  {
    method: "get",
    path: "/api/l1/rpc-config",
    summary: "The caller's L1 RPC URL (saved, or the platform default)",
    tags: ["chain"],
    auth: ["session", "apiKey"],
    scope: "chain:read",
    success: {
      status: 200,
      description:
        "`{rpcUrl, defaultRpcUrl, source}`; the platform default's credentials (user name, password, key-like " +
        "query values and path segments) are shown as `***`",
      schema: rpcConfigSchema,
    },
    errors: session,
  },
  {
    method: "post",
    path: "/api/l1/rpc-config",
    summary: "Save the caller's L1 RPC URL: HTTPS, not a placeholder, a host with only public addresses",
    tags: ["chain"],
    auth: ["session", "apiKey"],
    scope: "chain:write",
    body: rpcConfigBody,
    success: {
      status: 200,
      description: "`{success: true, rpcUrl}`",
      schema: z.object({ success: z.literal(true), rpcUrl: z.string() }),
    },
    errors: {
      ...session,
      400: "missing, not a string, invalid, not HTTPS, a placeholder, or a non-public host",
    },
  },
];
