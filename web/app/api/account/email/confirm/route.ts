import { confirmEmailChange } from "@/lib/accounts/profile";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { sessionUserOf } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/**
 * GET /api/account/email/confirm?token=: the link mailed to the new address; 302 to Settings (signed in as
 * that account) or the sign-in page, either saying what happened.
 */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const outcome = await confirmEmailChange(ctx, new URL(request.url).searchParams.get("token"));
  const signedIn = outcome.changed && (await sessionUserOf(ctx, request))?.id === outcome.userId;
  const target = outcome.changed
    ? signedIn
      ? "/dashboard/settings?emailChanged=1"
      : "/login?emailChanged=1"
    : `/login?error=${outcome.reason}`;
  return new Response(null, {
    status: 302,
    headers: { location: new URL(target, ctx.config.PUBLIC_URL).toString(), "cache-control": "no-store" },
  });
});
