import { resendVerification, verifyEmail } from "@/lib/accounts/service";
import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/auth/verify-email?token=: the link from the verification mail; redirects to a page. */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const ok = await verifyEmail(ctx, new URL(request.url).searchParams.get("token"));
  const target = ok ? "/dashboard?verified=1" : "/login?error=VerificationFailed";
  return Response.redirect(new URL(target, ctx.config.PUBLIC_URL), 302);
});

/** POST /api/auth/verify-email (session): mails a fresh link; `{sent: true, email}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await resendVerification(ctx, user.id));
});
