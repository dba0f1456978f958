import type { UserContext } from "@svc/common";
import type { RequestHandler } from "express";
import { adminRequired } from "./errors";
import { userContextOf } from "./user-context";

/** Whether an email is one of `ADMIN_EMAILS` (case-insensitive, surrounding spaces ignored). */
export function isAdminEmail(adminEmails: readonly string[], email: string): boolean {
  const wanted = email.trim().toLowerCase();
  return wanted !== "" && adminEmails.some((admin) => admin.trim().toLowerCase() === wanted);
}

/**
 * Whether a verified user context is an administrator's: role `admin` (the web signs it only for a proven
 * address) and the email in `ADMIN_EMAILS`. Neither alone is enough: the email alone would make an address
 * someone merely registered an administrator.
 */
export function isAdminContext(adminEmails: readonly string[], context: UserContext): boolean {
  return context.userRole === "admin" && isAdminEmail(adminEmails, context.userEmail);
}

/**
 * Admin endpoints: the verified context must be an administrator's (`isAdminContext`),
 * otherwise 403 `ADMIN_REQUIRED`. Runs after `verifyUserContext`.
 */
export function requireAdmin(adminEmails: readonly string[]): RequestHandler {
  return (_req, res, next) => {
    if (!isAdminContext(adminEmails, userContextOf(res))) {
      throw adminRequired();
    }
    next();
  };
}
