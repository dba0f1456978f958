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

/** 400: the reset link's token is unknown, used, replaced by a newer one, or older than its hour. */
export const invalidResetLink = () =>
  new HttpError(
    400,
    "invalid_reset_link",
    "this reset link is invalid, already used or expired: ask for a new one",
  );

/** 400 naming the field: the current password given does not match the account's. */
export const wrongPassword = (field: "currentPassword" | "password") =>
  new HttpError(
    400,
    "wrong_password",
    `${field === "password" ? "Password" : "Current password"} is not right`,
    {
      field,
    },
  );

/** 400: the account signs in without a password (passkey or identity provider): none to check or change. */
export const noPasswordSet = () =>
  new HttpError(
    400,
    "no_password",
    "this account has no password: set one with “Forgot password” on the sign-in page (the link is mailed to you)",
  );

/** 400: the new email is the account's own. */
export const sameEmail = () =>
  new HttpError(400, "same_email", "New email is the address the account already has", { field: "email" });

/** 409 naming the field: another account has the address. */
export const emailTaken = () =>
  new HttpError(409, "email_taken", "New email belongs to another account", { field: "email" });

/** 400: deleting the account needs its password, or (without one) its email typed out. */
export const deletionNotConfirmed = (hasPassword: boolean) =>
  hasPassword
    ? new HttpError(400, "confirmation_required", "Password is required to delete the account", {
        field: "password",
      })
    : new HttpError(
        400,
        "confirmation_required",
        "Confirmation must be the account's email address, typed out",
        { field: "confirm" },
      );

/** 409: a deploy of the user's agent is running; deleting now could leave the new agent behind. */
export const deployInProgress = () =>
  new HttpError(
    409,
    "deploy_in_progress",
    "a deploy or repair of your agent is running: wait for it to finish (Jobs page), then delete the account",
  );

/** 502: an agent could not be removed from the hosting platform; the account is kept. */
export const agentRemovalFailed = (agentName: string, reason: string) =>
  new HttpError(
    502,
    "agent_removal_failed",
    `your agent "${agentName}" could not be removed (${reason}); the account was not deleted: try again`,
  );
