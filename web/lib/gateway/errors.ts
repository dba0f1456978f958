import { HttpError } from "@svc/common";

/** The gateway's failures, one constructor per code; answered in the gateway shape `{error: code, message, ...}`. */
export const unknownPlugin = (id: string) =>
  new HttpError(400, "unknown_plugin", `unknown plugin "${id}" (no pricing)`);
export const noPlugin = (id: string) =>
  new HttpError(502, "no_plugin", `plugin "${id}" has no upstream configured`);
export const badPaymentMethod = () =>
  new HttpError(400, "invalid_request", "X-Payment-Method must be stripe, mpp or session");
export const unauthorized = () =>
  new HttpError(
    401,
    "Unauthorized",
    "this plugin needs a session, a verified MPP credential or a payment session",
  );
export const paymentRequired = (message: string, extra: Record<string, unknown>) =>
  new HttpError(402, "payment_required", message, extra);
export const sessionRequired = () =>
  new HttpError(402, "session_required", "session billing needs both X-Session-Id and X-Wallet-Address");
export const sessionInvalid = () =>
  new HttpError(
    402,
    "session_invalid",
    "the payment session is unknown, expired or belongs to another wallet",
  );
export const insufficientBalance = (remaining: string, cost: string) =>
  new HttpError(402, "insufficient_balance", "the payment session's balance does not cover this call", {
    session: { remaining, cost },
  });
export const voucherFailed = () =>
  new HttpError(402, "voucher_failed", "the voucher could not be recorded; nothing was debited");
export const idempotencyInProgress = () =>
  new HttpError(409, "idempotency_in_progress", "a call with this Idempotency-Key is still being answered");
export const idempotencyAnswerNotKept = (status: number | null) =>
  new HttpError(
    409,
    "idempotency_answer_not_kept",
    status === null
      ? "the first call with this Idempotency-Key was paid once (its voucher is in Payment-Receipt), but no " +
          "answer was recorded for it within 15 minutes (the process answering it stopped): it cannot be " +
          "replayed; send a new key for a new call"
      : `the first call with this Idempotency-Key was answered ${status} and paid once (its voucher is in ` +
          "Payment-Receipt), but its answer was not kept (over 1 MB, or a stream that did not end): " +
          "it cannot be replayed; send a new key for a new call",
  );
/**
 * The facilitator was asked to settle a credential but its answer was lost (504 after a timeout, 502 for a
 * broken connection or a facilitator failure): the transfer may have happened. The credential's claim is
 * kept, so it is never settled again.
 */
export const settlementUnknown = (status: 502 | 504, detail: string) =>
  new HttpError(
    status,
    "payment_settlement_unknown",
    `the payment's settlement has an unknown outcome (${detail}): the payment may have gone through. ` +
      "Retrying the same credential will not charge it twice (it is never settled again); do not sign a new " +
      "one for this call unless you know the first was not paid",
  );
/** A retry of a credential whose settlement had an unknown outcome (see settlementUnknown). */
export const settlementStillUnknown = () =>
  new HttpError(
    502,
    "payment_settlement_unknown",
    "this payment credential was sent to the facilitator before, and the outcome of that settlement is " +
      "unknown: the payment may have gone through. It is never settled again, so it will not be charged twice; " +
      "the operator resolves it from the chain",
  );
/** Said when a call without an answer stays paid (see service.ts, "refunds"). */
const STAYS_PAID = "the call stays paid: the plugin had the request and may have done the work";
export const upstreamTimeout = (id: string, seconds: number, upstreamHadRequest: boolean) =>
  new HttpError(
    504,
    "upstream_timeout",
    upstreamHadRequest
      ? `plugin "${id}" did not answer within ${seconds} s; ${STAYS_PAID}`
      : `plugin "${id}" could not be reached within ${seconds} s`,
  );
export const upstreamUnreachable = (id: string, detail: string, upstreamHadRequest: boolean) =>
  new HttpError(
    502,
    "upstream_unreachable",
    upstreamHadRequest
      ? `plugin "${id}" broke off the call: ${detail}; ${STAYS_PAID}`
      : `plugin "${id}" could not be reached: ${detail}`,
  );
export const cardProviderFailed = (detail: string) =>
  new HttpError(
    502,
    "card_provider_unavailable",
    `the card payments provider did not create a checkout: ${detail}`,
  );
export const notConfigured = (variable: string, what: string) =>
  new HttpError(503, "not_configured", `${what} is not configured: set ${variable}`);
export const sessionNotFound = () => new HttpError(404, "not_found", "payment session not found");
export const depositOutOfRange = (min: string, max: string) =>
  new HttpError(400, "invalid_request", `Deposit must be between ${min} and ${max} USD`, {
    field: "deposit",
  });
export const badSignature = (reason: string) =>
  new HttpError(400, "invalid_signature", `webhook signature check failed: ${reason}`);
