import { hmacHex, safeEqual } from "./crypto";

/** Who a web request acts for, as the web proxy tells the backend. */
export interface UserContext {
  userId: string;
  userEmail: string;
  userRole: string;
}

/** HMAC-SHA256 (hex) over `{userId}:{userEmail}:{userRole}`: the `x-user-signature` header. */
export function signUserContext(secret: string, context: UserContext): string {
  return hmacHex(secret, `${context.userId}:${context.userEmail}:${context.userRole}`);
}

/** The four headers the web sends to the backend for a signed-in user. */
export function userContextHeaders(secret: string, context: UserContext): Record<string, string> {
  return {
    "x-user-id": context.userId,
    "x-user-email": context.userEmail,
    "x-user-role": context.userRole,
    "x-user-signature": signUserContext(secret, context),
  };
}

/**
 * Why the user-context key is unfit for production, or null. With `NODE_ENV=production`, `HMAC_SECRET` must
 * be set and differ from `INTERNAL_API_KEY`: signing with the internal key adds nothing beyond the bearer key
 * every backend call already carries. Elsewhere the fallback to INTERNAL_API_KEY stays. The message
 * names the variable and never its value. Web and backend refuse to start on it (their config.ts).
 */
export function userContextSecretProblem(config: {
  NODE_ENV?: string | undefined;
  HMAC_SECRET?: string | undefined;
  INTERNAL_API_KEY?: string | undefined;
}): string | null {
  if (config.NODE_ENV !== "production") return null;
  if (!config.HMAC_SECRET) {
    return "HMAC_SECRET: must be set when NODE_ENV=production (a secret of its own, not INTERNAL_API_KEY)";
  }
  if (config.INTERNAL_API_KEY && safeEqual(config.HMAC_SECRET, config.INTERNAL_API_KEY)) {
    return "HMAC_SECRET: must differ from INTERNAL_API_KEY when NODE_ENV=production";
  }
  return null;
}
