import { cookieFromHeader } from "@svc/common";

/** Reads one cookie from the request's Cookie header. */
export function readCookie(request: Request, name: string): string | undefined {
  return cookieFromHeader(request.headers.get("cookie"), name);
}

export interface CookieOptions {
  maxAgeSeconds: number;
  secure: boolean;
  httpOnly?: boolean;
  sameSite?: "Lax" | "Strict" | "None";
  path?: string;
}

/** A Set-Cookie value. A max age of 0 clears the cookie. */
export function serializeCookie(name: string, value: string, options: CookieOptions): string {
  const parts = [`${name}=${encodeURIComponent(value)}`, `Path=${options.path ?? "/"}`];
  parts.push(`Max-Age=${options.maxAgeSeconds}`);
  if (options.maxAgeSeconds === 0) parts.push("Expires=Thu, 01 Jan 1970 00:00:00 GMT");
  if (options.httpOnly !== false) parts.push("HttpOnly");
  parts.push(`SameSite=${options.sameSite ?? "Lax"}`);
  if (options.secure) parts.push("Secure");
  return parts.join("; ");
}
