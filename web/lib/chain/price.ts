/**
 * GET /api/l1/price: the SOL quote from the market data provider, cached 60 s in PostgreSQL so any number of
 * web processes make one upstream call per period. Concurrent misses in one process share one refresh; across
 * processes the refresh runs under an advisory lock and re-reads the row first, so a process that waited finds
 * the quote another one just stored.
 */
import type { Clock } from "@svc/common";
import type { Database } from "@svc/db";
import { marketDataCache } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { withAdvisoryLock } from "../db/advisory-lock";
import { marketDataFailed } from "./errors";
import { type CoinQuote, fetchUsdQuotes, type MarketDataConfig, MarketDataError } from "./market-data-client";
import type { L1Price } from "./schema";

/** Spec "Limits": price cache 60 s. */
export const PRICE_CACHE_MS = 60_000;
const L1_COIN_ID = "solana";
const CACHE_KEY = `price:${L1_COIN_ID}:usd`;

interface Deps {
  db: Database;
  clock: Clock;
  config: MarketDataConfig;
}

const refreshing = new Map<string, Promise<L1Price>>();

export async function getL1Price(deps: Deps): Promise<L1Price> {
  const cached = await readFresh(deps);
  if (cached) return cached;
  let refresh = refreshing.get(CACHE_KEY);
  if (!refresh) {
    refresh = refreshL1Price(deps).finally(() => refreshing.delete(CACHE_KEY));
    refreshing.set(CACHE_KEY, refresh);
  }
  return refresh;
}

/** Fetches and stores the quote unless another process stored a fresh one while this one waited for the lock. */
export async function refreshL1Price(deps: Deps): Promise<L1Price> {
  return withAdvisoryLock(deps.db, `market-data:${CACHE_KEY}`, async () => {
    const cached = await readFresh(deps);
    if (cached) return cached;
    let quote: CoinQuote | undefined;
    try {
      quote = (await fetchUsdQuotes(deps.config, [L1_COIN_ID]))[L1_COIN_ID];
    } catch (err) {
      if (err instanceof MarketDataError) throw marketDataFailed(err.message);
      throw err;
    }
    if (!quote) throw marketDataFailed(`the provider has no quote for ${L1_COIN_ID}`);
    const price: L1Price = {
      price: quote.usd ?? null,
      change24h: quote.usd_24h_change ?? null,
      marketCap: quote.usd_market_cap ?? null,
      volume24h: quote.usd_24h_vol ?? null,
    };
    const fetchedAt = deps.clock.now();
    await deps.db
      .insert(marketDataCache)
      .values({ key: CACHE_KEY, value: price, fetchedAt })
      .onConflictDoUpdate({ target: marketDataCache.key, set: { value: sql`excluded.value`, fetchedAt } });
    return price;
  });
}

async function readFresh(deps: Deps): Promise<L1Price | null> {
  const [row] = await deps.db
    .select()
    .from(marketDataCache)
    .where(eq(marketDataCache.key, CACHE_KEY))
    .limit(1);
  if (!row) return null;
  const age = deps.clock.now().getTime() - row.fetchedAt.getTime();
  return age >= 0 && age < PRICE_CACHE_MS ? (row.value as L1Price) : null;
}
