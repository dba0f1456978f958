/**
 * A loopback market data API (CoinGecko protocol) for tests: `GET /simple/price?ids=…&vs_currencies=usd`
 * with the `include_24hr_change`, `include_market_cap` and `include_24hr_vol` flags, from a price table.
 * `failWith` answers an HTTP error; `calls()` counts price requests.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeCoinQuote {
  usd: number;
  usd_24h_change?: number;
  usd_market_cap?: number;
  usd_24h_vol?: number;
}

export interface FakeMarketData {
  url: string;
  requests: FakeUpstream["requests"];
  quotes: Map<string, FakeCoinQuote>;
  /** Requests of /simple/price so far. */
  calls(): number;
  failWith(status: number | null): void;
  close(): Promise<void>;
}

export async function startFakeMarketData(): Promise<FakeMarketData> {
  const quotes = new Map<string, FakeCoinQuote>([
    [
      "solana",
      { usd: 142.37, usd_24h_change: -2.125, usd_market_cap: 67_000_000_000, usd_24h_vol: 3_100_000_000 },
    ],
    [
      "ethereum",
      { usd: 3000, usd_24h_change: 1.5, usd_market_cap: 360_000_000_000, usd_24h_vol: 15_000_000_000 },
    ],
  ]);
  let failure: number | null = null;
  const upstream = await startFakeUpstream((req, res) => {
    const url = new URL(req.url ?? "/", "http://fake");
    if (!url.pathname.endsWith("/simple/price")) return sendJson(res, 404, { error: "Not found" });
    if (failure !== null)
      return sendJson(res, failure, { status: { error_code: failure, error_message: "failing" } });
    if (url.searchParams.get("vs_currencies") !== "usd")
      return sendJson(res, 400, { error: "vs_currencies" });
    const body: Record<string, Record<string, number>> = {};
    for (const id of (url.searchParams.get("ids") ?? "").split(",")) {
      const quote = quotes.get(id);
      if (!quote) continue;
      const entry: Record<string, number> = { usd: quote.usd };
      if (url.searchParams.get("include_market_cap") === "true" && quote.usd_market_cap !== undefined)
        entry.usd_market_cap = quote.usd_market_cap;
      if (url.searchParams.get("include_24hr_vol") === "true" && quote.usd_24h_vol !== undefined)
        entry.usd_24h_vol = quote.usd_24h_vol;
      if (url.searchParams.get("include_24hr_change") === "true" && quote.usd_24h_change !== undefined)
        entry.usd_24h_change = quote.usd_24h_change;
      body[id] = entry;
    }
    sendJson(res, 200, body);
  });
  return {
    url: upstream.url,
    requests: upstream.requests,
    quotes,
    calls: () => upstream.requests.filter((r) => r.path.includes("/simple/price")).length,
    failWith(status) {
      failure = status;
    },
    close: () => upstream.close(),
  };
}
