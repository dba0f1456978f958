import { hmacHex } from "./crypto";

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
