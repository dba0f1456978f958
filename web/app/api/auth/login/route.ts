import { loginSchema } from "@/lib/accounts/inputs";
import { countLoginAttempt, loginWithPassword } from "@/lib/accounts/login";
import { webContext } from "@/lib/infra/context";
import { assertCsrf } from "@/lib/infra/csrf/service";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";
import { sessionCookie } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** POST /api/auth/login: CSRF header, `{email, password}` → `{ok: true, user: {id, name}}` + session cookie. */
export const POST = route({ auth: "public", fallbackMessage: "login failed" }, async (request: Request) => {
  const ctx = webContext();
  const ip = clientIp(request, ctx.config);
  await countLoginAttempt(ctx, ip);
  assertCsrf(ctx.config, request);
  const input = await readJson(request, loginSchema, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  const { user, session } = await loginWithPassword(ctx, input, {
    ip,
    userAgent: request.headers.get("user-agent"),
  });
  return Response.json(
    { ok: true, user },
    { headers: { "set-cookie": sessionCookie(ctx.config, session.token) } },
  );
});
