/**
 * The one client of the market data provider (CoinGecko's `simple/price` protocol at MARKET_DATA_URL), used
 * by the L1 price and by the radio tips' ETH conversion. `COINGECKO_API_KEY`, when set, goes in its header.
 */
import { createOutboundClient, OutboundError } from "@svc/common";
import { z } from "zod";

export const MARKET_DATA_TIMEOUT_MS = 10_000;

export interface MarketDataConfig {
  MARKET_DATA_URL: string;
  COINGECKO_API_KEY?: string;
}

export class MarketDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MarketDataError";
  }
}

const client = createOutboundClient({
  name: "the market data provider",
  headers: { accept: "application/json" },
});

const coinQuote = z.object({
  usd: z.number().nullish(),
  usd_24h_change: z.number().nullish(),
  usd_market_cap: z.number().nullish(),
  usd_24h_vol: z.number().nullish(),
});
export type CoinQuote = z.infer<typeof coinQuote>;
const simplePrice = z.record(z.string(), coinQuote);

/** USD quotes of the coins `ids` (with 24 h change, market cap and 24 h volume); a coin it does not know is absent. */
export async function fetchUsdQuotes(
  config: MarketDataConfig,
  ids: readonly string[],
  options: { signal?: AbortSignal; timeoutMs?: number } = {},
): Promise<Record<string, CoinQuote>> {
  const query = new URLSearchParams({
    ids: ids.join(","),
    vs_currencies: "usd",
    include_24hr_change: "true",
    include_market_cap: "true",
    include_24hr_vol: "true",
  });
  let body: unknown;
  try {
    const answer = await client.request({
      url: `${config.MARKET_DATA_URL.replace(/\/+$/, "")}/simple/price?${query}`,
      headers: config.COINGECKO_API_KEY ? { "x-cg-demo-api-key": config.COINGECKO_API_KEY } : {},
      timeoutMs: options.timeoutMs ?? MARKET_DATA_TIMEOUT_MS,
      signal: options.signal,
    });
    if (!answer.ok) throw new MarketDataError(`the market data provider answered HTTP ${answer.status}`);
    body = answer.json();
  } catch (err) {
    if (err instanceof OutboundError) throw new MarketDataError(err.message);
    throw err;
  }
  const parsed = simplePrice.safeParse(body);
  if (!parsed.success) throw new MarketDataError("the market data provider's answer has an unexpected shape");
  return parsed.data;
}
