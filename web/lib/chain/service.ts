/**
 * Layer-1 wallet lookup, platform token verification and the per-user RPC URL.
 * Wallet lookups use the caller's saved RPC URL (through the outbound URL guard) or the platform default.
 */
import { promisify } from "node:util";
import { guardedLookup, OutboundError, outboundPolicy } from "@svc/common";
import type { Database } from "@svc/db";
import { userRpcConfigs } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import type { WebConfig } from "../infra/config";
import { badRpcUrl, verifyRpcFailed, walletLookupFailed } from "./errors";
import type { L1Verify, L1Wallet, RpcConfig } from "./inputs";
import { KNOWN_MINTS, tokenSymbol } from "./known-mints";
import {
  accountInfoResult,
  balanceResult,
  callL1Rpc,
  type L1Endpoint,
  L1RpcError,
  SPL_TOKEN_PROGRAM,
  tokenAccountsResult,
} from "./l1-rpc-client";
import { maskUrlCredentials } from "./mask-url";
import { benefitsOf, ELIGIBLE_MIN_BALANCE, HOLDER_TIERS } from "./tiers";
import { unitsToNumber } from "./units";

/** Most tokens a wallet lookup lists. */
export const WALLET_MAX_TOKENS = 20;
const LAMPORTS_DECIMALS = 9;

type ChainConfig = Pick<WebConfig, "L1_RPC_URL" | "PLATFORM_TOKEN_MINT" | "OUTBOUND_ALLOW_HOSTS">;
interface Deps {
  db: Database;
  config: ChainConfig;
}

/**
 * The caller's saved RPC URL (theirs, shown as saved), or the platform default; the default's credentials
 * (the operator's provider key) are masked wherever it appears.
 */
export async function getRpcConfig(deps: Deps, userId: string): Promise<RpcConfig> {
  const saved = await savedRpcUrl(deps.db, userId);
  const defaultRpcUrl = maskUrlCredentials(deps.config.L1_RPC_URL);
  return saved
    ? { rpcUrl: saved, defaultRpcUrl, source: "user" }
    : { rpcUrl: defaultRpcUrl, defaultRpcUrl, source: "default" };
}

/** Saves the caller's RPC URL after checking it: HTTPS, not a placeholder, a host with only public addresses. */
export async function saveRpcConfig(
  deps: Deps,
  userId: string,
  rpcUrl: string,
): Promise<{ success: true; rpcUrl: string }> {
  const url = checkRpcUrl(rpcUrl);
  await assertPublicHost(url, deps.config.OUTBOUND_ALLOW_HOSTS);
  const value = url.toString();
  await deps.db
    .insert(userRpcConfigs)
    .values({ userId, rpcUrl: value })
    .onConflictDoUpdate({ target: userRpcConfigs.userId, set: { rpcUrl: value, updatedAt: sql`now()` } });
  return { success: true, rpcUrl: value };
}

const PLACEHOLDER_HOSTS =
  /(^|\.)example(\.(com|org|net))?$|your[-_]?rpc|your[-_]?(api[-_]?)?key|placeholder/i;
const PLACEHOLDER_TEXT = /<[^>]*>|%3C[^%]*%3E|your[-_]?api[-_]?key|your[-_]?key/i;
const API_KEY_PARAM = /^api[-_]?key$/i;

/** The URL, or a 400 saying why it cannot be saved (invalid, not HTTPS, a placeholder). */
export function checkRpcUrl(raw: string): URL {
  if (PLACEHOLDER_TEXT.test(raw)) throw badRpcUrl("is a placeholder: replace the <…> part with your value");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw badRpcUrl("is not a valid URL");
  }
  if (url.protocol !== "https:") throw badRpcUrl("must use https");
  if (url.username || url.password) throw badRpcUrl("must not carry a user name or password");
  if (PLACEHOLDER_HOSTS.test(url.hostname))
    throw badRpcUrl(`is a placeholder: ${url.hostname} is an example host, not your RPC provider`);
  for (const [name, value] of url.searchParams) {
    if (API_KEY_PARAM.test(name) && value.trim() === "")
      throw badRpcUrl(`is a placeholder: the ${name} value is empty`);
  }
  return url;
}

const lookupAll = (allowHosts: readonly string[]) => promisify(guardedLookup(outboundPolicy(allowHosts)));

/** 400 unless every address the host resolves to is public (or the host is in OUTBOUND_ALLOW_HOSTS). */
async function assertPublicHost(url: URL, allowHosts: readonly string[]): Promise<void> {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  try {
    await lookupAll(allowHosts)(host, { all: true });
  } catch (err) {
    if (err instanceof OutboundError) throw badRpcUrl(`is not allowed: ${err.message}`);
    throw badRpcUrl(`host ${host} could not be resolved`);
  }
}

async function savedRpcUrl(db: Database, userId: string): Promise<string | null> {
  const [row] = await db
    .select({ rpcUrl: userRpcConfigs.rpcUrl })
    .from(userRpcConfigs)
    .where(eq(userRpcConfigs.userId, userId))
    .limit(1);
  return row?.rpcUrl ?? null;
}

/** The address's SOL balance, non-zero tokens (largest first, at most 20) and account info. */
export async function lookupWallet(deps: Deps, userId: string, address: string): Promise<L1Wallet> {
  const saved = await savedRpcUrl(deps.db, userId);
  const endpoint: L1Endpoint = saved
    ? { url: saved, guardAllowHosts: deps.config.OUTBOUND_ALLOW_HOSTS }
    : { url: deps.config.L1_RPC_URL };
  try {
    const [balance, tokenAccounts, info] = await Promise.all([
      callL1Rpc(endpoint, "getBalance", [address], balanceResult),
      callL1Rpc(
        endpoint,
        "getTokenAccountsByOwner",
        [address, { programId: SPL_TOKEN_PROGRAM }, { encoding: "jsonParsed" }],
        tokenAccountsResult,
      ),
      callL1Rpc(endpoint, "getAccountInfo", [address, { encoding: "base64" }], accountInfoResult),
    ]);
    const account = info.value;
    return {
      address,
      solBalance: unitsToNumber(BigInt(balance.value), LAMPORTS_DECIMALS),
      tokens: topTokens(tokenAccounts.value.map((a) => a.account.data.parsed.info)),
      accountInfo: {
        isExecutable: account?.executable ?? false,
        owner: account?.owner ?? null,
        rentEpoch: account?.rentEpoch ?? null,
      },
    };
  } catch (err) {
    if (err instanceof L1RpcError) throw walletLookupFailed(err.message);
    throw err;
  }
}

interface Holding {
  mint: string;
  tokenAmount: { amount: string; decimals: number };
}

/**
 * Non-zero holdings merged per mint, by amount descending (exact, across decimals), at most 20. Amounts and
 * decimals arrive bounded (./units.ts), so the powers of ten below stay small.
 */
export function topTokens(holdings: readonly Holding[]): L1Wallet["tokens"] {
  const perMint = new Map<string, { raw: bigint; decimals: number }>();
  for (const { mint, tokenAmount } of holdings) {
    const raw = BigInt(tokenAmount.amount);
    if (raw === 0n) continue;
    const decimals = KNOWN_MINTS[mint]?.decimals ?? tokenAmount.decimals;
    const seen = perMint.get(mint);
    perMint.set(mint, { raw: (seen?.raw ?? 0n) + raw, decimals });
  }
  return [...perMint]
    .sort(([mintA, a], [mintB, b]) => {
      // a.raw / 10^a.decimals against b.raw / 10^b.decimals, in integers.
      const left = a.raw * 10n ** BigInt(b.decimals);
      const right = b.raw * 10n ** BigInt(a.decimals);
      return left === right ? mintA.localeCompare(mintB) : left > right ? -1 : 1;
    })
    .slice(0, WALLET_MAX_TOKENS)
    .map(([mint, { raw, decimals }]) => ({
      mint,
      symbol: tokenSymbol(mint),
      amount: unitsToNumber(raw, decimals),
      decimals,
    }));
}

/** The address's platform token balance and the tiers it qualifies for (public; the platform's RPC). */
export async function verifyHolder(deps: Pick<Deps, "config">, address: string): Promise<L1Verify> {
  const mint = deps.config.PLATFORM_TOKEN_MINT;
  let raw = 0n;
  let decimals = 0;
  try {
    const accounts = await callL1Rpc(
      { url: deps.config.L1_RPC_URL },
      "getTokenAccountsByOwner",
      [address, { mint }, { encoding: "jsonParsed" }],
      tokenAccountsResult,
    );
    for (const { account } of accounts.value) {
      raw += BigInt(account.data.parsed.info.tokenAmount.amount);
      decimals = account.data.parsed.info.tokenAmount.decimals;
    }
  } catch (err) {
    if (err instanceof L1RpcError) throw verifyRpcFailed(err.message);
    throw err;
  }
  const balance = unitsToNumber(raw, decimals);
  return {
    address,
    token: mint,
    balance,
    eligible: balance >= ELIGIBLE_MIN_BALANCE,
    benefits: benefitsOf(balance),
    tiers: HOLDER_TIERS.map((t) => ({ ...t })),
  };
}
