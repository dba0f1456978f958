import { HttpError } from "@svc/common";

/** The passkeys area's failures, one constructor per code. */
export const registrationNotVerified = () =>
  new HttpError(400, "verification_failed", "passkey registration could not be verified");
export const alreadyRegistered = () =>
  new HttpError(400, "already_registered", "this passkey is already registered");
export const noPasskeyAccount = () =>
  new HttpError(404, "not_found", "no account with a passkey for this identifier");
export const passkeyNotFound = () => new HttpError(404, "passkey_not_found", "passkey not recognized");
export const verificationFailed = () =>
  new HttpError(401, "verification_failed", "passkey verification failed");
export const noSuchPasskey = () => new HttpError(404, "not_found", "passkey not found");
export const invalidChallenge = () =>
  new HttpError(400, "invalid_challenge", "challenge is unknown or was already used");
export const challengeExpired = () =>
  new HttpError(400, "challenge_expired", "challenge has expired; request new options");
