import { HttpError } from "@svc/common";
import { INVALID_PRIVATE_KEY } from "./inputs";

/**
 * The agent wallets area's failures. The 400 messages for missing fields are fixed word for word (clients
 * match them); `field` names the one a form shows it beside.
 */
const badRequest = (message: string, field?: string) =>
  new HttpError(400, "invalid_request", message, field ? { field } : undefined);
export const createFieldsRequired = () => badRequest("agentId and companyId required");
export const registerFieldsRequired = () => badRequest("agentId, companyId, and privateKey required");
export const urlRequired = () => badRequest("url required", "url");
export const agentIdRequired = () => badRequest("agentId required", "agentId");
export const invalidAction = () => badRequest("Invalid action");
export const invalidPrivateKey = () => badRequest(INVALID_PRIVATE_KEY, "privateKey");
export const walletNotFound = () => new HttpError(404, "wallet_not_found", "wallet not found");
export const walletExists = () => new HttpError(409, "wallet_exists", "this agent already has a wallet");
export const walletKeyMissing = () =>
  new HttpError(
    500,
    "wallet_key_missing",
    "agent wallets are not available: WALLET_ENCRYPTION_KEY is not set",
  );
export const balanceFailed = (reason: string) =>
  new HttpError(500, "balance_failed", `the wallet balance could not be read: ${reason}`);
/** The target URL was refused by the outbound guard (a redirect hop included). */
export const targetRefused = (reason: string) =>
  new HttpError(400, "url_refused", `URL is not allowed: ${reason}`, { field: "url" });
export const targetFailed = (reason: string) =>
  new HttpError(500, "target_failed", `the target could not be reached: ${reason}`);
/** A refused or failed payment: nothing was signed (refused) or the seller did not accept it (failed). */
export const paymentFailed = (reason: string, paymentId: string | null) =>
  new HttpError(402, "payment_failed", `payment failed: ${reason}`, { paymentId });
