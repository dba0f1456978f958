/**
 * The dashboard's session cookie: set by the web's sign-in (web/lib/sessions/service.ts), read by the
 * backend's permission socket, named in the OpenAPI documents' `session` scheme.
 */
export const SESSION_COOKIE = "svc-session";

/** One cookie's value from a `Cookie` header (URI-decoded when it can be), or undefined. */
export function cookieFromHeader(header: string | null | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0 || part.slice(0, eq).trim() !== name) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return undefined;
}
