import { ConfigError, csv, flag, httpUrl, positiveInt } from "@svc/common";
import { assets } from "mppx/x402";
import { z } from "zod";

/** A USD amount as a decimal string (`0.05`, at most 6 decimals), kept a string so it never becomes a float. */
const usd = (defaultValue: string) =>
  z
    .string()
    .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a USD amount such as 0.05 (at most 6 decimals)")
    .default(defaultValue);

/** A plugin's price: above zero, since nothing is served without a verified payment. */
const price = (defaultValue: string) =>
  usd(defaultValue).refine((v) => /[1-9]/.test(v), "must be more than 0 (every call is paid)");

const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address");

/** The v1 gateway's variables (plugins, card credit, MPP, pre-funded sessions). */
export const gatewayEnv = {
  /** Upstream of each plugin; `agent` and `generate-text` default to the platform's AI provider via the backend. */
  GATEWAY_PLUGIN_AGENT_URL: httpUrl().optional(),
  GATEWAY_PLUGIN_GENERATE_TEXT_URL: httpUrl().optional(),
  GATEWAY_PLUGIN_TTS_URL: httpUrl().optional(),
  GATEWAY_PLUGIN_STT_URL: httpUrl().optional(),
  /** Plugin ids registered with `auth` true (none by default): they also need a session, MPP credential or payment session. */
  GATEWAY_AUTH_PLUGINS: csv(),
  /** How long a plugin has to answer (and, streaming, between two chunks); 30 s. */
  GATEWAY_UPSTREAM_TIMEOUT_MS: positiveInt(30_000),
  /**
   * web/server.ts serves the gateway and the payment-session reads ahead of Next.js, with the same route
   * handlers (lib/infra/http/ahead-of-next.ts); false sends them through Next's router like every other route.
   */
  GATEWAY_AHEAD_OF_NEXT: flag(true),
  /** Price per call of each plugin in USD. */
  GATEWAY_PLUGIN_AGENT_PRICE_USD: price("0.05"),
  GATEWAY_PLUGIN_GENERATE_TEXT_PRICE_USD: price("0.01"),
  GATEWAY_PLUGIN_TTS_PRICE_USD: price("0.03"),
  GATEWAY_PLUGIN_STT_PRICE_USD: price("0.02"),
  /** Card payments provider (Stripe): secret key, webhook signing secret, and an API base for a local fake. */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  STRIPE_API_BASE: httpUrl().optional(),
  /** The credit pack one card checkout buys, in USD (the provider's minimum charge is 0.50). */
  CARD_CREDIT_PACK_USD: usd("5").refine((v) => Number(v) >= 0.5, "must be at least 0.50"),
  /** MPP: the wallet paid, the EVM chain and EIP-3009 token (default USDC on Base), the challenge key, the facilitator. */
  MPP_RECIPIENT: address.optional(),
  MPP_CHAIN_ID: positiveInt(8453),
  MPP_TOKEN_ADDRESS: address.default("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"),
  /** The token's EIP-712 domain, only for a token outside mppx's asset table (see loadMppTokenConfig). */
  MPP_TOKEN_NAME: z.string().min(1).optional(),
  MPP_TOKEN_VERSION: z.string().min(1).optional(),
  MPP_TOKEN_DECIMALS: positiveInt(6),
  MPP_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  MPP_FACILITATOR_URL: httpUrl().optional(),
  /** How long the facilitator has to answer a settlement; past it the outcome is unknown and the claim kept. */
  MPP_FACILITATOR_TIMEOUT_MS: positiveInt(30_000),
  /** Pre-funded payment sessions: the deposit range in USD and how long a session lives. */
  SESSION_MIN_DEPOSIT_USD: usd("1.00"),
  SESSION_MAX_DEPOSIT_USD: usd("100.00"),
  SESSION_TTL_HOURS: positiveInt(24),
};

/** The EIP-712 domain (name, version) the MPP token signs EIP-3009 authorizations with. */
export interface MppTokenDomain {
  name: string;
  version: string;
}

export interface MppTokenConfig {
  mppToken: MppTokenDomain;
}

/** The domain mppx's asset table (`mppx/x402` `assets`) has for an EIP-3009 token on a chain, if it knows it. */
function knownMppTokenDomain(chainId: number, token: string): MppTokenDomain | undefined {
  for (const network of Object.values(assets)) {
    if (typeof network !== "object" || network === null) continue;
    for (const asset of Object.values(network)) {
      if (!assets.isAsset(asset) || asset.transfer.type !== "eip3009") continue;
      if (assets.toChainId(asset.network) !== chainId) continue;
      if (asset.address.toLowerCase() !== token.toLowerCase()) continue;
      return { name: asset.transfer.name, version: asset.transfer.version };
    }
  }
  return undefined;
}

/**
 * The MPP token's EIP-712 domain. A token's domain is fixed by its contract and differs between chains (USDC
 * is "USD Coin" on Base, "USDC" on Base Sepolia), and every authorization signed for another domain is
 * refused: so a token mppx's table knows takes the table's domain, and MPP_TOKEN_NAME/MPP_TOKEN_VERSION
 * that contradict it are a configuration error; any other token needs MPP_TOKEN_NAME (MPP_TOKEN_VERSION
 * defaults to "2", Circle's FiatToken). Throws ConfigError naming the variables.
 */
export function loadMppTokenConfig(parsed: {
  MPP_CHAIN_ID: number;
  MPP_TOKEN_ADDRESS: string;
  MPP_TOKEN_NAME?: string;
  MPP_TOKEN_VERSION?: string;
}): MppTokenConfig {
  const token = `MPP_TOKEN_ADDRESS ${parsed.MPP_TOKEN_ADDRESS} on MPP_CHAIN_ID ${parsed.MPP_CHAIN_ID}`;
  const known = knownMppTokenDomain(parsed.MPP_CHAIN_ID, parsed.MPP_TOKEN_ADDRESS);
  if (!known) {
    if (!parsed.MPP_TOKEN_NAME) {
      throw new ConfigError([
        `MPP_TOKEN_NAME: must be set: ${token} is not a token mppx's asset table knows, so its EIP-712 ` +
          "domain name (and MPP_TOKEN_VERSION, default 2) must be given",
      ]);
    }
    return { mppToken: { name: parsed.MPP_TOKEN_NAME, version: parsed.MPP_TOKEN_VERSION ?? "2" } };
  }
  const problems: string[] = [];
  for (const [variable, given, own] of [
    ["MPP_TOKEN_NAME", parsed.MPP_TOKEN_NAME, known.name],
    ["MPP_TOKEN_VERSION", parsed.MPP_TOKEN_VERSION, known.version],
  ] as const) {
    if (given !== undefined && given !== own) {
      problems.push(
        `${variable}: ${token} signs with EIP-712 ${variable === "MPP_TOKEN_NAME" ? "name" : "version"} ` +
          `"${own}", not "${given}" (mppx's asset table); leave ${variable} unset`,
      );
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return { mppToken: known };
}
