import { HttpError } from "@svc/common";

/** The accounts area's failures, one constructor per code (the body is `{error: message, code}`). */
export const userExists = () =>
  new HttpError(409, "user_exists", "an account with this email already exists");
export const userNotFound = () => new HttpError(404, "user_not_found", "user not found");
export const invalidReferralCode = () => new HttpError(400, "invalid_referral_code", "unknown referral code");
export const botDetected = () =>
  new HttpError(403, "bot_detected", "automated sign-ups are not allowed; sign up in a browser");
export const invalidCredentials = () =>
  new HttpError(401, "invalid_credentials", "invalid email or password");
