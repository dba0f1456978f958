import { HttpError } from "@svc/common";

/** The accounts area's failures, one constructor per code (the body is `{error: message, code}`). */
export const userExists = () =>
  new HttpError(409, "user_exists", "an account with this email already exists", { field: "email" });
export const userNotFound = () => new HttpError(404, "user_not_found", "user not found");
export const invalidReferralCode = () =>
  new HttpError(400, "invalid_referral_code", "Referral code is unknown: check it, or leave it empty", {
    field: "referralCode",
  });
export const botDetected = () =>
  new HttpError(403, "bot_detected", "automated sign-ups are not allowed; sign up in a browser");
export const invalidCredentials = () =>
  new HttpError(401, "invalid_credentials", "invalid email or password");

/**
 * 403: provisioning and AI use need a confirmed email (REQUIRE_VERIFIED_EMAIL). Without SMTP_URL the mail
 * is a file on the server, which only a local operator can open: the message says where.
 */
export const emailNotVerified = (mailIsFile: boolean) =>
  new HttpError(
    403,
    "email_not_verified",
    `confirm your email address first: open the link we mailed you, or send a new one from Settings${
      mailIsFile ? " (this server has no SMTP_URL: its mail is written to files in DATA_DIR/mail)" : ""
    }`,
  );
export const emailAlreadyVerified = () =>
  new HttpError(409, "email_already_verified", "your email address is already confirmed");
