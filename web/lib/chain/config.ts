import { csv, httpUrl } from "@svc/common";
import { z } from "zod";

/** The chain area's variables. */
export const chainEnv = {
  /** Default layer-1 (Solana) JSON-RPC URL; a user may save their own HTTPS one (POST /api/l1/rpc-config). */
  L1_RPC_URL: httpUrl().default("https://api.mainnet-beta.solana.com"),
  /** Market data API (CoinGecko protocol): SOL price for /api/l1/price, ETH price for DJ tips. */
  MARKET_DATA_URL: httpUrl().default("https://api.coingecko.com/api/v3"),
  /** Sent as `x-cg-demo-api-key` when set. */
  COINGECKO_API_KEY: z.string().optional(),
  /** Mint of the platform token whose balance GET /api/l1/verify reads. */
  PLATFORM_TOKEN_MINT: z
    .string()
    .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "must be a base58 mint address")
    .default("9V4m199eohMgy7bB7MbXhDacUur6NzpgZVrhfux5pump"),
  /**
   * Hosts the web may call at user-supplied URLs whatever they resolve to (saved RPC URLs, agent payment
   * targets); everything else must resolve to a public address. For tests and private deployments only.
   */
  OUTBOUND_ALLOW_HOSTS: csv(),
};
