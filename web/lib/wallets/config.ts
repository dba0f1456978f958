import { csv, httpUrl } from "@svc/common";
import { z } from "zod";

/** A decimal USD amount (`1.00`) as integer micro-USD. */
const usdAmount = (defaultValue: string) =>
  z
    .string()
    .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a USD amount such as 1.00")
    .default(defaultValue)
    .transform((value) => {
      const [whole, fraction = ""] = value.split(".");
      return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, "0"));
    });

const evmAddress = /^0x[0-9a-fA-F]{40}$/;
const addressList = (defaultValue: string) =>
  csv()
    .default(defaultValue.split(","))
    .refine((list) => list.every((a) => evmAddress.test(a)), "must be a comma list of 0x addresses")
    .transform((list) => list.map((a) => a.toLowerCase()));

/** The agent wallets area's variables. */
export const walletsEnv = {
  /** 64 hex chars: the AES-256-GCM key of agent wallet private keys; unset, wallets cannot be created or used. */
  WALLET_ENCRYPTION_KEY: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters")
    .optional(),
  /** EVM JSON-RPC for wallet balances (`eth_call` balanceOf). */
  EVM_RPC_URL: httpUrl().default("https://mainnet.base.org"),
  /** ERC-20 token whose balance get-balance reports (default USDC on Base). */
  AGENT_PAYMENT_TOKEN_ADDRESS: z
    .string()
    .regex(evmAddress, "must be a 0x address")
    .default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
  /** Largest single payment an agent wallet signs, USD. */
  AGENT_PAYMENT_MAX_USD: usdAmount("1.00"),
  /** Most an agent wallet signs per UTC day, USD (counted in PostgreSQL). */
  AGENT_PAYMENT_DAILY_USD: usdAmount("10.00"),
  /** CAIP-2 networks payments may use (default Base and Base Sepolia). */
  AGENT_PAYMENT_NETWORKS: csv()
    .default(["eip155:8453", "eip155:84532"])
    .refine((list) => list.every((n) => /^eip155:\d+$/.test(n)), "must be a comma list of eip155:<chainId>"),
  /** Token addresses payments may use: USD stablecoins with 6 decimals (default USDC on Base and Base Sepolia). */
  AGENT_PAYMENT_ASSETS: addressList(
    "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913,0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  ),
  /** When set, the only addresses payments may go to. */
  AGENT_PAYMENT_RECIPIENTS: csv()
    .refine((list) => list.every((a) => evmAddress.test(a)), "must be a comma list of 0x addresses")
    .transform((list) => list.map((a) => a.toLowerCase())),
};
