import { HttpError } from "@svc/common";

/** The accounts area's failures, one constructor per code (the body is `{error: message, code}`). */
export const userExists = () =>
  new HttpError(409, "user_exists", "an account with this email already exists");
export const userNotFound = () => new HttpError(404, "user_not_found", "user not found");
