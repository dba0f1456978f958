/**
 * The wrapper's admin access (the login routes: `routes/auth.ts`). With no password every request is admin;
 * with one, a request is admin with the `ocw_admin` cookie, `Authorization: Bearer <password>` or
 * `x-admin-token`. The cookie is `<issuedAtMs>.<HMAC>` keyed by the password over its issue time and this
 * process's cookie key (random at start, replaced at an admin's logout): it proves the password without
 * holding it, is refused by the server after 7 days, and stops working at logout or restart, so a leaked
 * cookie can be cut off.
 */
import {
  bearerCredential,
  type Clock,
  cookieFromHeader,
  hmacHex,
  randomToken,
  rateLimitAddress,
  safeEqual,
  systemClock,
} from "@svc/common";
import type { Request, RequestHandler } from "express";
import { unauthorized } from "../http/errors";

export const ADMIN_COOKIE = "ocw_admin";
const COOKIE_LABEL = "ocw-admin-cookie-v2";
export const COOKIE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
export const LOGIN_WINDOW_MS = 60_000;
export const LOGIN_MAX_FAILURES = 5;

/** The cookie value issued at `issuedAtMs` under the process's cookie key `key`. */
export function adminCookieValue(password: string, key: string, issuedAtMs: number): string {
  const issuedAt = Math.trunc(issuedAtMs);
  return `${issuedAt}.${hmacHex(password, `${COOKIE_LABEL}:${key}:${issuedAt}`)}`;
}

function readCookie(req: Request, name: string): string | undefined {
  return cookieFromHeader(req.headers.cookie, name);
}

/** Only a same-site absolute path: `/x`, never `//host`, `/\host` or anything with a scheme or control chars. */
export function safeNextPath(next: unknown): string {
  if (typeof next !== "string" || !next.startsWith("/")) return "/";
  if (next.startsWith("//") || next.startsWith("/\\")) return "/";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: rejecting control characters is the point
  if (/[\u0000-\u001f\u007f\\]/.test(next)) return "/";
  return next;
}

function wantsHtml(req: Request): boolean {
  return (req.method === "GET" || req.method === "HEAD") && (req.headers.accept ?? "").includes("text/html");
}

/** The client address the login limit counts: an IPv6 client by its /64 (rateLimitAddress). */
export function loginLimitAddress(req: Request): string {
  return rateLimitAddress(req.ip ?? req.socket.remoteAddress ?? "unknown");
}

export interface AdminAccess {
  /** False when no password is configured (every request is admin). */
  enabled: boolean;
  /** A new `ocw_admin` cookie value proving the password, valid for COOKIE_MAX_AGE_MS ("" when disabled). */
  issueCookie(): string;
  /** Every cookie issued so far stops working (an admin's logout). */
  revokeCookies(): void;
  isAdmin(req: Request): boolean;
  /** Lets admins through; others get a redirect to `/login` (HTML GET/HEAD) or 401. */
  requireAdmin: RequestHandler;
  /** Failed login attempts of a client IP in the current one-minute window. */
  loginFailures(ip: string): { count: number; windowStart: number };
  /** Forgets a client IP's failures (after a successful login). */
  clearLoginFailures(ip: string): void;
}

export function adminAccess(password: string | undefined, options: { clock?: Clock } = {}): AdminAccess {
  const clock = options.clock ?? systemClock;
  const enabled = typeof password === "string" && password.length > 0;
  let cookieKey = randomToken(16);

  /** Whether a cookie value was issued by this process under its current key and is under 7 days old. */
  function validCookie(value: string): boolean {
    const match = /^(\d{1,16})\.[0-9a-f]{64}$/.exec(value);
    if (!match || !enabled) return false;
    const issuedAt = Number(match[1]);
    const age = clock.now().getTime() - issuedAt;
    const expected = adminCookieValue(password, cookieKey, issuedAt);
    return safeEqual(value, expected) && age >= 0 && age < COOKIE_MAX_AGE_MS;
  }
  // Failed login attempts per client IP in a fixed one-minute window.
  const failures = new Map<string, { count: number; windowStart: number }>();

  function isAdmin(req: Request): boolean {
    if (!enabled) return true;
    const cookie = readCookie(req, ADMIN_COOKIE);
    let ok = false;
    // Evaluate every credential so the time taken does not reveal which one was present.
    if (cookie !== undefined && validCookie(cookie)) ok = true;
    const bearer = bearerCredential(req.headers.authorization);
    if (bearer !== null && safeEqual(bearer, password)) ok = true;
    const token = req.headers["x-admin-token"];
    if (typeof token === "string" && safeEqual(token, password)) ok = true;
    return ok;
  }

  const requireAdmin: RequestHandler = (req, res, next) => {
    if (isAdmin(req)) return next();
    if (wantsHtml(req)) {
      res.redirect(302, `/login?next=${encodeURIComponent(req.originalUrl)}`);
      return;
    }
    throw unauthorized();
  };

  function failureEntry(ip: string): { count: number; windowStart: number } {
    const now = clock.now().getTime();
    let entry = failures.get(ip);
    if (!entry || now - entry.windowStart >= LOGIN_WINDOW_MS) {
      entry = { count: 0, windowStart: now };
      failures.set(ip, entry);
    }
    if (failures.size > 10_000) {
      for (const [key, value] of failures)
        if (now - value.windowStart >= LOGIN_WINDOW_MS) failures.delete(key);
    }
    return entry;
  }

  return {
    enabled,
    issueCookie: () => (enabled ? adminCookieValue(password, cookieKey, clock.now().getTime()) : ""),
    revokeCookies: () => {
      cookieKey = randomToken(16);
    },
    isAdmin,
    requireAdmin,
    loginFailures: failureEntry,
    clearLoginFailures: (ip) => failures.delete(ip),
  };
}
