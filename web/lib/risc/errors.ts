import { HttpError } from "@svc/common";

/** The security events area's failures, one constructor per code. */
export const invalidToken = (message: string) => new HttpError(400, "invalid_token", message);
export const signingKeysUnavailable = () =>
  new HttpError(502, "signing_keys_unavailable", "the provider's signing keys could not be fetched");
