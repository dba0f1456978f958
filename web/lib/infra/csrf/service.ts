import { hmacHex, randomToken, safeEqual } from "@svc/common";
import type { WebConfig } from "../config";
import { readCookie, serializeCookie } from "../http/cookies";
import { csrfFailed } from "./errors";

export const CSRF_COOKIE = "svc-csrf";
export const CSRF_TTL_SECONDS = 60 * 60;

export interface CsrfToken {
  token: string;
  signed: string;
  header: string;
}

/** A new CSRF token, its HMAC (key SESSION_SECRET) and the header value `{token}:{signed}`. */
export function issueCsrfToken(config: WebConfig): CsrfToken {
  const token = randomToken(32);
  const signed = hmacHex(config.SESSION_SECRET, `csrf:${token}`);
  return { token, signed, header: `${token}:${signed}` };
}

/** The short-lived double-submit cookie holding the token. */
export function csrfCookie(config: WebConfig, token: string): string {
  return serializeCookie(CSRF_COOKIE, token, {
    maxAgeSeconds: CSRF_TTL_SECONDS,
    secure: config.cookieSecure,
  });
}

/**
 * Checks `x-csrf-token` (or `x-xsrf-token`) = `{token}:{signed}`: the token must equal the cookie's and
 * the signature must verify, both compared in constant time. Otherwise 403.
 */
export function assertCsrf(config: WebConfig, request: Request): void {
  const header = request.headers.get("x-csrf-token") ?? request.headers.get("x-xsrf-token") ?? "";
  const [token = "", signed = ""] = header.split(":");
  const cookie = readCookie(request, CSRF_COOKIE) ?? "";
  const expected = hmacHex(config.SESSION_SECRET, `csrf:${token}`);
  const cookieMatches = safeEqual(token, cookie);
  const signatureMatches = safeEqual(signed, expected);
  if (!token || !cookie || !cookieMatches || !signatureMatches) {
    throw csrfFailed();
  }
}
