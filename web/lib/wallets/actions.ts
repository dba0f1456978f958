/**
 * /api/agent/mpp dispatch: the action picks the service call; missing fields answer the fixed 400 messages
 * (clients match them word for word), before anything is read or written.
 */
import type { WebContext } from "../infra/context";
import { parseWith } from "../infra/http/body";
import {
  agentIdRequired,
  createFieldsRequired,
  invalidAction,
  registerFieldsRequired,
  urlRequired,
} from "./errors";
import {
  createWalletInput,
  makePaymentInput,
  registerWalletInput,
  requireFields,
  walletGetActions,
  walletPostActions,
} from "./inputs";
import { makePayment } from "./payer";
import {
  createWallet,
  getWallet,
  getWalletBalance,
  listPayments,
  listWallets,
  registerWallet,
  walletEndpoints,
} from "./service";

type GetAction = (typeof walletGetActions)[number];
const isOneOf = <T extends string>(list: readonly T[], value: unknown): value is T =>
  list.includes(value as T);

export async function runWalletQuery(
  ctx: WebContext,
  userId: string,
  query: URLSearchParams,
): Promise<unknown> {
  const action = query.get("action");
  if (action === null || action === "") return walletEndpoints(ctx.config);
  if (!isOneOf<GetAction>(walletGetActions, action)) throw invalidAction();
  if (action === "list-wallets") return { wallets: await listWallets(ctx, userId) };
  if (action === "list-payments") return { payments: await listPayments(ctx, userId) };
  const agentId = query.get("agentId")?.trim();
  if (!agentId) throw agentIdRequired();
  return action === "get-wallet" ? getWallet(ctx, userId, agentId) : getWalletBalance(ctx, userId, agentId);
}

export async function runWalletAction(ctx: WebContext, userId: string, body: Record<string, unknown>) {
  const action = body.action;
  if (!isOneOf(walletPostActions, action)) throw invalidAction();
  switch (action) {
    case "create-wallet":
      if (!requireFields(body, ["agentId", "companyId"])) throw createFieldsRequired();
      return createWallet(ctx, userId, parseWith(createWalletInput, body));
    case "register-wallet":
      if (!requireFields(body, ["agentId", "companyId", "privateKey"])) throw registerFieldsRequired();
      return registerWallet(ctx, userId, parseWith(registerWalletInput, body));
    case "make-payment":
      if (!requireFields(body, ["url"])) throw urlRequired();
      if (!requireFields(body, ["agentId"])) throw agentIdRequired();
      return makePayment(ctx, userId, parseWith(makePaymentInput, body));
  }
}
