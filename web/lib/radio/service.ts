/**
 * Streaming-service identity: the radio wallet a user links, and that
 * wallet's DJ profile and stats from the radio service. The whole lookup has one 6 s budget; when it runs out
 * or the service fails, `dj` and `stats` are null and `error` says why: the streaming service's own failure in
 * words, anything else (the ETH price, our database) a fixed sentence with the detail in the log. Tips are
 * recorded in ETH and shown in USD(C) at the market data ETH price, rounded to 2 decimals.
 */
import { type Clock, isHttpError, type Logger } from "@svc/common";
import type { Database } from "@svc/db";
import { radioWallets } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { getUsdQuote } from "../chain/price";
import type { WebConfig } from "../infra/config";
import type { DjStats } from "./inputs";
import { fetchDjByWallet, fetchDjStats, fetchLiveSlugs, RadioApiError } from "./radio-client";

/** The streaming service's timeout: 6 s for the whole lookup. */
export const RADIO_BUDGET_MS = 6_000;

interface Deps {
  db: Database;
  clock: Clock;
  logger: Logger;
  config: Pick<WebConfig, "RADIO_API_URL" | "MARKET_DATA_URL" | "COINGECKO_API_KEY">;
}

export async function getRadioWallet(db: Database, userId: string): Promise<string | null> {
  const [row] = await db.select().from(radioWallets).where(eq(radioWallets.userId, userId)).limit(1);
  return row?.wallet ?? null;
}

/** Links (lower-case) or, with null, unlinks the user's radio wallet. */
export async function setRadioWallet(db: Database, userId: string, wallet: string | null) {
  if (wallet === null) {
    await db.delete(radioWallets).where(eq(radioWallets.userId, userId));
  } else {
    await db
      .insert(radioWallets)
      .values({ userId, wallet })
      .onConflictDoUpdate({ target: radioWallets.userId, set: { wallet, updatedAt: sql`now()` } });
  }
  return { ok: true as const, wallet };
}

class BudgetSpent extends Error {}
class NoEthPrice extends Error {}

/** `error` for a failure that is not the streaming service's: fixed words, never the internal detail. */
export const TIPS_UNPRICED = "the tips could not be priced: the ETH price is not available right now";
export const LOOKUP_FAILED = "the DJ stats could not be read because of an internal error";

export async function getDjStats(deps: Deps, userId: string): Promise<DjStats> {
  const wallet = await getRadioWallet(deps.db, userId);
  if (!wallet) return { linked: false };
  const deadline = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const spent = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      deadline.abort();
      reject(new BudgetSpent());
    }, RADIO_BUDGET_MS);
  });
  const options = { signal: deadline.signal, timeoutMs: RADIO_BUDGET_MS };
  try {
    return await Promise.race([spent, lookup(deps, wallet, options)]);
  } catch (err) {
    let error: string;
    if (err instanceof BudgetSpent || deadline.signal.aborted)
      error = `the radio service did not answer within ${RADIO_BUDGET_MS / 1000} s`;
    else if (err instanceof RadioApiError) error = err.message;
    else {
      const unpriced = err instanceof NoEthPrice || (isHttpError(err) && err.code === "market_data_failed");
      error = unpriced ? TIPS_UNPRICED : LOOKUP_FAILED;
      // A market data outage is the provider's (a warning); anything else is ours to look at.
      if (unpriced) deps.logger.warn({ err, userId }, `dj-stats: ${error}`);
      else deps.logger.error({ err, userId }, `dj-stats: ${error}`);
    }
    return { linked: true, wallet, dj: null, stats: null, error };
  } finally {
    clearTimeout(timer);
    deadline.abort();
  }
}

async function lookup(deps: Deps, wallet: string, options: { signal: AbortSignal; timeoutMs: number }) {
  const base = deps.config.RADIO_API_URL;
  const dj = await fetchDjByWallet(base, wallet, options);
  if (!dj) return { linked: true as const, wallet, dj: null, stats: null };
  const [stats, live, eth] = await Promise.all([
    fetchDjStats(base, dj.slug, options),
    fetchLiveSlugs(base, options),
    getUsdQuote(deps, "ethereum"),
  ]);
  if (eth.price === null) throw new NoEthPrice("the market data provider has no ETH price");
  return {
    linked: true as const,
    wallet,
    dj: {
      name: dj.name,
      slug: dj.slug,
      avatar: dj.avatar ?? null,
      followers: dj.followers ?? 0,
      genres: dj.genres ?? [],
    },
    stats: {
      totalShows: stats.totalShows ?? 0,
      totalListeners: stats.totalListeners ?? 0,
      totalTipsUsdc: Math.round((stats.totalTipsEth ?? 0) * eth.price * 100) / 100,
      isLive: live.has(dj.slug),
    },
  };
}
