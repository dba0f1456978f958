import { hmacHex, safeEqual } from "@svc/common";
import type { WebConfig } from "../infra/config";
import { serializeCookie } from "../infra/http/cookies";

/**
 * The browser that signed up (issue 26 item 7): sign-up sets this short-lived cookie, and the confirmation
 * link opened in the same browser within its hour signs the person in. It names the account and its expiry,
 * signed with SESSION_SECRET, and is sent only to the link's path. Opened anywhere else (another browser, a
 * mail scanner, someone the link was forwarded to), the link confirms the address and signs nobody in.
 */
export const SIGNUP_COOKIE = "svc-signup";
export const SIGNUP_COOKIE_TTL_MS = 60 * 60 * 1000;
const SIGNUP_COOKIE_PATH = "/api/auth/verify-email";

type Config = Pick<WebConfig, "SESSION_SECRET" | "cookieSecure">;

function signature(config: Config, userId: string, expiresAtMs: number): string {
  return hmacHex(config.SESSION_SECRET, `signup-browser:${userId}:${expiresAtMs}`);
}

/** The Set-Cookie of the browser that created `userId` at `now`. */
export function signupBrowserCookie(config: Config, userId: string, now: Date): string {
  const expiresAtMs = now.getTime() + SIGNUP_COOKIE_TTL_MS;
  return serializeCookie(
    SIGNUP_COOKIE,
    `${userId}.${expiresAtMs}.${signature(config, userId, expiresAtMs)}`,
    {
      maxAgeSeconds: SIGNUP_COOKIE_TTL_MS / 1000,
      secure: config.cookieSecure,
      path: SIGNUP_COOKIE_PATH,
    },
  );
}

/** Clears it (once it signed the person in, or the link was spent). */
export function clearedSignupBrowserCookie(config: Config): string {
  return serializeCookie(SIGNUP_COOKIE, "", {
    maxAgeSeconds: 0,
    secure: config.cookieSecure,
    path: SIGNUP_COOKIE_PATH,
  });
}

/** Whether the cookie's value was set by this server for `userId` and has not expired. */
export function isSignupBrowserOf(
  config: Config,
  value: string | undefined,
  userId: string,
  now: Date,
): boolean {
  const [id = "", expires = "", signed = ""] = (value ?? "").split(".");
  const expiresAtMs = Number(expires);
  if (!id || !/^\d{1,16}$/.test(expires)) return false;
  const valid = safeEqual(signed, signature(config, id, expiresAtMs));
  return valid && id === userId && expiresAtMs > now.getTime();
}
