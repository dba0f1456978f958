/**
 * Agent wallets (/api/agent/mpp): one EVM wallet per agent of the caller, its private key
 * generated with viem or imported, stored AES-256-GCM encrypted, never returned. Every query is scoped to the
 * caller: another user's agent or wallet answers 404.
 */
import type { Database } from "@svc/db";
import { type AgentWallet, agentPayments, agentWallets } from "@svc/db/schema";
import { and, asc, desc, eq } from "drizzle-orm";
import { type Address, getAddress, type Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { requireUserAgent } from "../agents/service";
import type { WebConfig } from "../infra/config";
import type { WebContext } from "../infra/context";
import { balanceFailed, invalidPrivateKey, walletExists, walletNotFound } from "./errors";
import { EvmRpcError, erc20Balance } from "./evm-rpc-client";
import type { AgentWalletView, CreateWalletInput, PaymentRecord, RegisterWalletInput } from "./inputs";
import { sealPrivateKey } from "./keys";
import { paymentView } from "./ledger";
import { formatMicroUsd } from "./money";

type Deps = Pick<WebContext, "db" | "config">;

const view = (row: Pick<AgentWallet, "agentId" | "companyId" | "address">): AgentWalletView => ({
  agentId: row.agentId,
  companyId: row.companyId,
  address: row.address,
});

export async function listWallets(deps: Pick<Deps, "db">, userId: string): Promise<AgentWalletView[]> {
  const rows = await deps.db
    .select()
    .from(agentWallets)
    .where(eq(agentWallets.userId, userId))
    .orderBy(asc(agentWallets.createdAt), asc(agentWallets.agentId));
  return rows.map(view);
}

/** The caller's wallet of `agentId`, key included (for signing only); 404 otherwise. */
export async function requireWallet(db: Database, userId: string, agentId: string): Promise<AgentWallet> {
  const [row] = await db
    .select()
    .from(agentWallets)
    .where(and(eq(agentWallets.userId, userId), eq(agentWallets.agentId, agentId)))
    .limit(1);
  if (!row) throw walletNotFound();
  return row;
}

export async function getWallet(deps: Pick<Deps, "db">, userId: string, agentId: string) {
  const { address } = await requireWallet(deps.db, userId, agentId);
  return { agentId, address };
}

/** The wallet's balance of AGENT_PAYMENT_TOKEN_ADDRESS on EVM_RPC_URL, as a decimal string. */
export async function getWalletBalance(deps: Deps, userId: string, agentId: string) {
  const { address } = await requireWallet(deps.db, userId, agentId);
  try {
    const balance = await erc20Balance(
      deps.config.EVM_RPC_URL,
      getAddress(deps.config.AGENT_PAYMENT_TOKEN_ADDRESS),
      address as Address,
    );
    return { agentId, balance };
  } catch (err) {
    if (err instanceof EvmRpcError) throw balanceFailed(err.message);
    throw err;
  }
}

/** The key's address; a key viem refuses is a 400 without viem's message (it quotes the key as a number). */
function addressOf(privateKey: Hex): Address {
  try {
    return privateKeyToAccount(privateKey).address;
  } catch {
    throw invalidPrivateKey();
  }
}

async function storeWallet(
  deps: Deps,
  userId: string,
  input: CreateWalletInput,
  privateKey: Hex,
): Promise<AgentWalletView> {
  await requireUserAgent(deps, userId, input.agentId);
  const address = addressOf(privateKey);
  const rows = await deps.db
    .insert(agentWallets)
    .values({
      userId,
      agentId: input.agentId,
      companyId: input.companyId,
      address,
      encryptedPrivateKey: sealPrivateKey(deps.config.WALLET_ENCRYPTION_KEY, privateKey),
    })
    .onConflictDoNothing()
    .returning();
  if (!rows[0]) throw walletExists();
  return view(rows[0]);
}

/** A new key generated with viem for the caller's agent; 404 for another user's agent, 409 the second time. */
export async function createWallet(deps: Deps, userId: string, input: CreateWalletInput) {
  const wallet = await storeWallet(deps, userId, input, generatePrivateKey());
  return {
    success: true as const,
    ...wallet,
    message: `Wallet created for agent ${wallet.agentId}; fund ${wallet.address} with USDC to let it pay.`,
  };
}

/** Imports a 32-byte hex key for the caller's agent. */
export async function registerWallet(deps: Deps, userId: string, input: RegisterWalletInput) {
  const key = (
    input.privateKey.startsWith("0x") ? input.privateKey : `0x${input.privateKey}`
  ).toLowerCase() as Hex;
  const wallet = await storeWallet(deps, userId, input, key);
  return { success: true as const, ...wallet };
}

/** The caller's payment attempts, newest first (at most `limit`). */
export async function listPayments(
  deps: Pick<Deps, "db">,
  userId: string,
  limit = 100,
): Promise<PaymentRecord[]> {
  const rows = await deps.db
    .select()
    .from(agentPayments)
    .where(eq(agentPayments.userId, userId))
    .orderBy(desc(agentPayments.createdAt), desc(agentPayments.id))
    .limit(limit);
  return rows.map(paymentView);
}

/** The index GET /api/agent/mpp answers without an action. */
export function walletEndpoints(
  config: Pick<WebConfig, "AGENT_PAYMENT_MAX_USD" | "AGENT_PAYMENT_DAILY_USD">,
) {
  return {
    endpoints: {
      "GET ?action=list-wallets": "{wallets: [{agentId, companyId, address}]}",
      "GET ?action=get-wallet&agentId=<id>": "{agentId, address}",
      "GET ?action=get-balance&agentId=<id>": "{agentId, balance}",
      "GET ?action=list-payments": "{payments: [...]}, the payments ledger",
      "POST {action: 'create-wallet', agentId, companyId}": "{success, agentId, companyId, address, message}",
      "POST {action: 'register-wallet', agentId, companyId, privateKey}":
        "{success, agentId, companyId, address}",
      "POST {action: 'make-payment', agentId, url, method?, headers?, body?}": "{success: true, result}",
    },
    policy: {
      maxPaymentUsd: formatMicroUsd(config.AGENT_PAYMENT_MAX_USD),
      dailyCapUsd: formatMicroUsd(config.AGENT_PAYMENT_DAILY_USD),
    },
  };
}
