const BEARER = /^Bearer (.+)$/i;

/**
 * The credential of an `Authorization: Bearer <credential>` header as sent (the scheme case-insensitive,
 * then one space); null when the header is missing, empty after the scheme, or of another scheme. The one
 * Bearer parser of every service: callers compare the credential (constant time) or look it up.
 */
export function bearerCredential(authorization: string | null | undefined): string | null {
  if (!authorization) return null;
  return BEARER.exec(authorization)?.[1] ?? null;
}
