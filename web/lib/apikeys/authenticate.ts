import { bearerCredential } from "@svc/common";

/**
 * The token of an `Authorization: Bearer <token>` header (blanks around it dropped, none inside), or
 * undefined. Where a route takes an API key, this is it (the decision is ../sessions/require.ts's).
 */
export function bearerToken(request: Request): string | undefined {
  const token = bearerCredential(request.headers.get("authorization"))?.trim();
  return token && !/\s/.test(token) ? token : undefined;
}
