import { bearerCredential, type Clock, cookieFromHeader, hmacHex, safeEqual, systemClock } from "@svc/common";
import { type Request, type RequestHandler, type Response, Router } from "express";
import { formBody, jsonBody } from "./http/body";
import { unauthorized } from "./http/errors";

export const ADMIN_COOKIE = "ocw_admin";
const COOKIE_LABEL = "ocw-admin-cookie-v1";
const COOKIE_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;
const LOGIN_WINDOW_MS = 60_000;
const LOGIN_MAX_FAILURES = 5;

export interface AdminAuth {
  requireAdmin: RequestHandler;
  isAdmin(req: Request): boolean;
  loginRoutes: Router;
}

/** The cookie value: an HMAC of a fixed label keyed by the password, so it proves knowledge without containing it. */
export function adminCookieValue(password: string): string {
  return hmacHex(password, COOKIE_LABEL);
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

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function loginPage(next: string, error?: string): string {
  const errorId = "password-error";
  const described = error ? ` aria-describedby="${errorId}" aria-invalid="true"` : "";
  const errorHtml = error ? `<p id="${errorId}" class="error" role="alert">${escapeHtml(error)}</p>` : "";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Wrapper sign-in</title>
<style>body{font-family:system-ui,sans-serif;max-width:22rem;margin:4rem auto;padding:0 1rem}label,input,button{display:block;width:100%;box-sizing:border-box}input,button{padding:.5rem;margin-top:.25rem;font-size:1rem}button{margin-top:1rem}.error{color:#b00020;margin:.25rem 0 0}</style>
</head>
<body>
<main>
<h1>Wrapper sign-in</h1>
<form method="post" action="/login">
<input type="hidden" name="next" value="${escapeHtml(next)}">
<label for="password">Admin password</label>
<input id="password" name="password" type="password" autocomplete="current-password" required autofocus${described}>
${errorHtml}
<button type="submit">Sign in</button>
</form>
</main>
</body>
</html>
`;
}

function wantsHtml(req: Request): boolean {
  return (req.method === "GET" || req.method === "HEAD") && (req.headers.accept ?? "").includes("text/html");
}

function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? "unknown";
}

/**
 * Wrapper admin authentication. With no password every request is admin; with one, a request is admin with
 * the `ocw_admin` cookie, `Authorization: Bearer <password>` or `x-admin-token: <password>`.
 */
export function adminAuth(password: string | undefined, options: { clock?: Clock } = {}): AdminAuth {
  const clock = options.clock ?? systemClock;
  const enabled = typeof password === "string" && password.length > 0;
  const cookieValue = enabled ? adminCookieValue(password) : "";
  // Failed login attempts per client IP in a fixed one-minute window.
  const failures = new Map<string, { count: number; windowStart: number }>();

  function isAdmin(req: Request): boolean {
    if (!enabled) return true;
    const cookie = readCookie(req, ADMIN_COOKIE);
    let ok = false;
    // Evaluate every credential so the time taken does not reveal which one was present.
    if (cookie !== undefined && safeEqual(cookie, cookieValue)) ok = true;
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

  function respondLoginError(req: Request, res: Response, status: number, error: string, next: string): void {
    res.status(status);
    if (req.is("application/json")) res.json({ ok: false, error });
    else res.type("html").send(loginPage(next, error));
  }

  const loginRoutes = Router();
  loginRoutes.get("/login", (req, res) => {
    const next = safeNextPath(req.query.next);
    if (enabled && !isAdmin(req)) {
      res.type("html").send(loginPage(next));
      return;
    }
    res.redirect(303, next);
  });

  loginRoutes.post("/login", formBody({ limit: "16kb" }), jsonBody({ limit: "16kb" }), (req, res) => {
    const body: Record<string, unknown> =
      req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {};
    const next = safeNextPath(body.next ?? req.query.next);
    if (!enabled) {
      res.redirect(303, next);
      return;
    }
    const entry = failureEntry(clientIp(req));
    if (entry.count >= LOGIN_MAX_FAILURES) {
      const retryAfter = Math.ceil((entry.windowStart + LOGIN_WINDOW_MS - clock.now().getTime()) / 1000);
      res.setHeader("Retry-After", String(Math.max(1, retryAfter)));
      respondLoginError(req, res, 429, "Too many attempts, try again in a minute", next);
      return;
    }
    const given = typeof body.password === "string" ? body.password : "";
    if (!safeEqual(given, password)) {
      entry.count += 1;
      respondLoginError(req, res, 401, "Wrong password", next);
      return;
    }
    failures.delete(clientIp(req));
    res.cookie(ADMIN_COOKIE, cookieValue, {
      httpOnly: true,
      sameSite: "strict",
      path: "/",
      maxAge: COOKIE_MAX_AGE_MS,
      secure: req.secure,
    });
    res.redirect(303, next);
  });

  loginRoutes.post("/logout", (req, res) => {
    res.clearCookie(ADMIN_COOKIE, { httpOnly: true, sameSite: "strict", path: "/", secure: req.secure });
    if ((req.headers.accept ?? "").includes("text/html")) res.redirect(303, "/login");
    else res.json({ ok: true, message: "signed out" });
  });

  return { requireAdmin, isAdmin, loginRoutes };
}
