import { HttpError } from "@svc/common";

/** The apikeys area's failures, one constructor per code. */
export const apiKeyNotFound = () => new HttpError(404, "not_found", "API key not found");
/** A bearer credential that is no active key: unknown, revoked, or not a key at all. */
export const invalidApiKey = () =>
  new HttpError(401, "unauthorized", "this API key is not valid: it is unknown or was deleted");
export const apiKeyExpired = (expiresAt: Date) =>
  new HttpError(
    401,
    "api_key_expired",
    `this API key expired at ${expiresAt.toISOString()}; create a new one in Settings`,
    { expiresAt: expiresAt.toISOString() },
  );
/** The key is valid but was not given the scope the route needs; `scope` names it. */
export const insufficientScope = (scope: string) =>
  new HttpError(403, "insufficient_scope", `this API key does not have the ${scope} scope`, { scope });
/** Account, API key, passkey and password routes take a signed-in session only. */
export const apiKeyNotAllowed = () =>
  new HttpError(
    403,
    "api_key_not_allowed",
    "API keys cannot be used for account, API key, passkey or password routes: sign in instead",
  );
export const apiKeyLimit = (limit: number) =>
  new HttpError(
    429,
    "api_key_limit",
    `at most ${limit} API keys per account: delete one you no longer use (expired keys count too)`,
  );
