/**
 * USD quotes from the market data provider (GET /api/l1/price: SOL; DJ tips: ETH), cached 60 s in PostgreSQL so any number of
 * web processes make one upstream call per period. Concurrent misses in one process share one refresh; across
 * processes the refresh runs under an advisory lock and re-reads the row first, so a process that waited finds
 * the quote another one just stored.
 */
import type { Clock } from "@svc/common";
import type { Database } from "@svc/db";
import { marketDataCache } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { withAdvisoryLock } from "../infra/db/advisory-lock";
import { marketDataFailed } from "./errors";
import type { L1Price } from "./inputs";
import { type CoinQuote, fetchUsdQuotes, type MarketDataConfig, MarketDataError } from "./market-data-client";

/** How long a fetched price is served from the cache (60 s). */
export const PRICE_CACHE_MS = 60_000;
const L1_COIN_ID = "solana";

interface Deps {
  db: Database;
  clock: Clock;
  config: MarketDataConfig;
}

const refreshing = new Map<string, Promise<L1Price>>();
const cacheKey = (coinId: string) => `price:${coinId}:usd`;

/** GET /api/l1/price: the L1 coin's quote. */
export const getL1Price = (deps: Deps) => getUsdQuote(deps, L1_COIN_ID);

/** A coin's USD quote (`solana`, `ethereum`, …) from the shared 60 s cache, refreshed once on a miss. */
export async function getUsdQuote(deps: Deps, coinId: string): Promise<L1Price> {
  const cached = await readFresh(deps, coinId);
  if (cached) return cached;
  let refresh = refreshing.get(coinId);
  if (!refresh) {
    refresh = refreshUsdQuote(deps, coinId).finally(() => refreshing.delete(coinId));
    refreshing.set(coinId, refresh);
  }
  return refresh;
}

/** Fetches and stores the quote unless another process stored a fresh one while this one waited for the lock. */
export async function refreshUsdQuote(deps: Deps, coinId: string = L1_COIN_ID): Promise<L1Price> {
  return withAdvisoryLock(deps.db, `market-data:${cacheKey(coinId)}`, async () => {
    const cached = await readFresh(deps, coinId);
    if (cached) return cached;
    let quote: CoinQuote | undefined;
    try {
      quote = (await fetchUsdQuotes(deps.config, [coinId]))[coinId];
    } catch (err) {
      if (err instanceof MarketDataError) throw marketDataFailed(err.message);
      throw err;
    }
    if (!quote) throw marketDataFailed(`the provider has no quote for ${coinId}`);
    const price: L1Price = {
      price: quote.usd ?? null,
      change24h: quote.usd_24h_change ?? null,
      marketCap: quote.usd_market_cap ?? null,
      volume24h: quote.usd_24h_vol ?? null,
    };
    const fetchedAt = deps.clock.now();
    await deps.db
      .insert(marketDataCache)
      .values({ key: cacheKey(coinId), value: price, fetchedAt })
      .onConflictDoUpdate({ target: marketDataCache.key, set: { value: sql`excluded.value`, fetchedAt } });
    return price;
  });
}

async function readFresh(deps: Deps, coinId: string): Promise<L1Price | null> {
  const [row] = await deps.db
    .select()
    .from(marketDataCache)
    .where(eq(marketDataCache.key, cacheKey(coinId)))
    .limit(1);
  if (!row) return null;
  const age = deps.clock.now().getTime() - row.fetchedAt.getTime();
  return age >= 0 && age < PRICE_CACHE_MS ? (row.value as L1Price) : null;
}
