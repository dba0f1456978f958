import { registerSchema } from "@/lib/accounts/inputs";
import { assertHumanClient, registerAccount } from "@/lib/accounts/service";
import { signupBrowserCookie } from "@/lib/accounts/signup-browser";
import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/register: `{email, password, name?, referralCode?}` → 201 `{id, email, name}`; no session, only
 * the sign-up browser's cookie.
 */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const userAgent = request.headers.get("user-agent");
  assertHumanClient(ctx, userAgent);
  const input = await readJson(request, registerSchema, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  const account = await registerAccount(ctx, input, {
    ip: clientIp(request, ctx.config),
    userAgent,
  });
  // No session; the cookie lets the confirmation link sign in this browser (lib/accounts/signup-browser.ts).
  return Response.json(account, {
    status: 201,
    headers: { "set-cookie": signupBrowserCookie(ctx.config, account.id, ctx.clock.now()) },
  });
});
