import { HttpError } from "@svc/common";
import type { RequestHandler } from "express";
import { userContextOf } from "./user-context";

/** Whether an email is one of `ADMIN_EMAILS` (case-insensitive, surrounding spaces ignored). */
export function isAdminEmail(adminEmails: readonly string[], email: string): boolean {
  const wanted = email.trim().toLowerCase();
  return wanted !== "" && adminEmails.some((admin) => admin.trim().toLowerCase() === wanted);
}

/**
 * Admin endpoints (spec "Admin"): the verified context's `x-user-email` must be in `ADMIN_EMAILS`
 * (case-insensitive), otherwise 403 `ADMIN_REQUIRED`. Runs after `verifyUserContext`.
 */
export function requireAdmin(adminEmails: readonly string[]): RequestHandler {
  return (_req, res, next) => {
    if (!isAdminEmail(adminEmails, userContextOf(res).userEmail)) {
      throw new HttpError(403, "ADMIN_REQUIRED", "an administrator account is required");
    }
    next();
  };
}
