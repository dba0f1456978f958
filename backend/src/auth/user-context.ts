import { safeEqual, signUserContext, type UserContext } from "@svc/common";
import type { RequestHandler, Response } from "express";
import { invalidSignature, signatureRequired } from "./errors";

export type { UserContext };

export interface VerifyUserContextOptions {
  /** `HMAC_SECRET`, else `INTERNAL_API_KEY` (see `userContextSecret`); unset or empty: no check at all. */
  secret: string | undefined;
  /**
   * true: every request must carry a valid signature (while a secret is set). false: the signature is
   * checked only when the request carries any `x-user-*` header, so operator calls with the internal key
   * alone pass (with the default anonymous context).
   */
  required: boolean;
}

/** The key of the user-context signature: `HMAC_SECRET`, else `INTERNAL_API_KEY`. */
export function userContextSecret(config: {
  HMAC_SECRET?: string | undefined;
  INTERNAL_API_KEY?: string | undefined;
}): string | undefined {
  return config.HMAC_SECRET || config.INTERNAL_API_KEY || undefined;
}

/**
 * User-context headers from the web proxy: `x-user-id` (default `anonymous`),
 * `x-user-email` (default empty), `x-user-role` (default `user`), `x-user-signature` = hex HMAC-SHA256 over
 * `{userId}:{userEmail}:{userRole}`, compared in constant time. 401 `SIGNATURE_REQUIRED` when it is missing,
 * 401 `INVALID_SIGNATURE` when it does not match. On success the context is on `res.locals.userContext`.
 */
export function verifyUserContext({ secret, required }: VerifyUserContextOptions): RequestHandler {
  return (req, res, next) => {
    const context: UserContext = {
      // Defaults only for absent headers: a present value is what the web signed, even when empty.
      userId: req.get("x-user-id") ?? "anonymous",
      userEmail: req.get("x-user-email") ?? "",
      userRole: req.get("x-user-role") ?? "user",
    };
    // Any `x-user-*` header (x-user-plan included) is a claim about a user, so it must come signed.
    const claimsUser = Object.keys(req.headers).some((name) => name.startsWith("x-user-"));
    if (secret && (required || claimsUser)) {
      const signature = req.get("x-user-signature");
      if (!signature) {
        throw signatureRequired();
      }
      if (!safeEqual(signature, signUserContext(secret, context))) {
        throw invalidSignature();
      }
    }
    res.locals.userContext = context;
    next();
  };
}

/** The context `verifyUserContext` put on the response; a route that forgot the middleware fails loudly. */
export function userContextOf(res: Response): UserContext {
  const context = res.locals.userContext as UserContext | undefined;
  if (!context) throw new Error("verifyUserContext must run before this handler");
  return context;
}
