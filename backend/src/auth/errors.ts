import { HttpError } from "@svc/common";

/** The auth area's failures, one constructor per code. */
export const adminRequired = () =>
  new HttpError(403, "ADMIN_REQUIRED", "an administrator account is required");
export const internalKeyRequired = () =>
  new HttpError(401, "unauthorized", "Authorization: Bearer <internal API key> required");
export const internalKeyUnset = () =>
  new HttpError(500, "internal_key_unset", "INTERNAL_API_KEY is not configured");
export const invalidInternalKey = () => new HttpError(403, "forbidden", "invalid internal API key");
export const signatureRequired = () =>
  new HttpError(401, "SIGNATURE_REQUIRED", "x-user-signature header is required");
export const invalidSignature = () =>
  new HttpError(401, "INVALID_SIGNATURE", "x-user-signature does not match the user context");
export const subscriptionMismatch = (message: string) => new HttpError(402, "SUBSCRIPTION_MISMATCH", message);
export const emailNotVerified = () =>
  new HttpError(
    403,
    "EMAIL_NOT_VERIFIED",
    "the account's email is not confirmed: AI use needs a confirmed email (the link of the verification mail)",
  );
