/** `GET/POST /login` and `POST /logout` of the wrapper's admin (the access rules: `auth/admin.ts`). */
import { type Clock, safeEqual, systemClock } from "@svc/common";
import { type Request, type RequestHandler, type Response, Router } from "express";
import {
  ADMIN_COOKIE,
  adminAccess,
  COOKIE_MAX_AGE_MS,
  LOGIN_MAX_FAILURES,
  LOGIN_WINDOW_MS,
  loginLimitAddress,
  safeNextPath,
} from "../auth/admin";
import { formBody, jsonBody } from "../http/body";

export interface AdminAuth {
  requireAdmin: RequestHandler;
  isAdmin(req: Request): boolean;
  loginRoutes: Router;
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

/**
 * Whether the browser reached the wrapper over HTTPS: TLS here, or a TLS-terminating proxy in front (the
 * hosting platform's edge) that says `X-Forwarded-Proto: https`. Trusting the header can only make the
 * cookie stricter (`Secure`): a client that claims https over plain HTTP just does not get it back.
 */
function reachedOverHttps(req: Request): boolean {
  const forwarded = req.headers["x-forwarded-proto"];
  const first = (Array.isArray(forwarded) ? forwarded[0] : forwarded)?.split(",")[0]?.trim().toLowerCase();
  return req.secure || first === "https";
}

/** The admin access of `password` and its login routes. */
export function adminAuth(password: string | undefined, options: { clock?: Clock } = {}): AdminAuth {
  const clock = options.clock ?? systemClock;
  const access = adminAccess(password, { clock });

  function respondLoginError(req: Request, res: Response, status: number, error: string, next: string): void {
    res.status(status);
    if (req.is("application/json")) res.json({ ok: false, error });
    else res.type("html").send(loginPage(next, error));
  }

  const loginRoutes = Router();
  loginRoutes.get("/login", (req, res) => {
    const next = safeNextPath(req.query.next);
    if (access.enabled && !access.isAdmin(req)) {
      res.type("html").send(loginPage(next));
      return;
    }
    res.redirect(303, next);
  });

  loginRoutes.post("/login", formBody({ limit: "16kb" }), jsonBody({ limit: "16kb" }), (req, res) => {
    const body: Record<string, unknown> =
      req.body && typeof req.body === "object" && !Array.isArray(req.body) ? req.body : {};
    const next = safeNextPath(body.next ?? req.query.next);
    if (!access.enabled) {
      res.redirect(303, next);
      return;
    }
    const entry = access.loginFailures(loginLimitAddress(req));
    if (entry.count >= LOGIN_MAX_FAILURES) {
      const retryAfter = Math.ceil((entry.windowStart + LOGIN_WINDOW_MS - clock.now().getTime()) / 1000);
      res.setHeader("Retry-After", String(Math.max(1, retryAfter)));
      respondLoginError(req, res, 429, "Too many attempts, try again in a minute", next);
      return;
    }
    const given = typeof body.password === "string" ? body.password : "";
    if (!safeEqual(given, password ?? "")) {
      entry.count += 1;
      respondLoginError(req, res, 401, "Wrong password", next);
      return;
    }
    access.clearLoginFailures(loginLimitAddress(req));
    res.cookie(ADMIN_COOKIE, access.issueCookie(), {
      httpOnly: true,
      sameSite: "strict",
      path: "/",
      maxAge: COOKIE_MAX_AGE_MS,
      secure: reachedOverHttps(req),
    });
    res.redirect(303, next);
  });

  loginRoutes.post("/logout", (req, res) => {
    // An admin's logout ends every cookie issued so far (anyone else's only clears their own browser's).
    if (access.enabled && access.isAdmin(req)) access.revokeCookies();
    res.clearCookie(ADMIN_COOKIE, {
      httpOnly: true,
      sameSite: "strict",
      path: "/",
      secure: reachedOverHttps(req),
    });
    if ((req.headers.accept ?? "").includes("text/html")) res.redirect(303, "/login");
    else res.json({ ok: true, message: "signed out" });
  });

  return { requireAdmin: access.requireAdmin, isAdmin: access.isAdmin, loginRoutes };
}
