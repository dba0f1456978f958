import { openConfirmationLink } from "@/lib/accounts/confirmation";
import { resendVerification } from "@/lib/accounts/service";
import { clearedSignupBrowserCookie, SIGNUP_COOKIE } from "@/lib/accounts/signup-browser";
import { webContext } from "@/lib/infra/context";
import { clientIp } from "@/lib/infra/http/client-ip";
import { readCookie } from "@/lib/infra/http/cookies";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { SESSION_COOKIE, sessionCookie } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/**
 * GET /api/auth/verify-email?token=: the link from the verification mail; redirects to a page that says
 * what happened, signed in when the browser that signed up opened it (lib/accounts/confirmation.ts).
 */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const outcome = await openConfirmationLink(ctx, {
    token: new URL(request.url).searchParams.get("token"),
    sessionCookie: readCookie(request, SESSION_COOKIE),
    signupCookie: readCookie(request, SIGNUP_COOKIE),
    ip: clientIp(request, ctx.config),
    userAgent: request.headers.get("user-agent") ?? undefined,
  });
  const headers = new Headers({
    location: new URL(outcome.location, ctx.config.PUBLIC_URL).toString(),
    "cache-control": "no-store",
  });
  if (outcome.sessionToken) headers.append("set-cookie", sessionCookie(ctx.config, outcome.sessionToken));
  if (outcome.clearSignupCookie) headers.append("set-cookie", clearedSignupBrowserCookie(ctx.config));
  return new Response(null, { status: 302, headers });
});

/** POST /api/auth/verify-email (session): mails a fresh link; `{sent: true, email}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await resendVerification(ctx, user.id));
});
