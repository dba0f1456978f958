import { resetPasswordSchema } from "@/lib/accounts/inputs";
import { resetPassword } from "@/lib/accounts/password";
import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";
import { clearedSessionCookie } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** POST /api/auth/reset-password `{token, password}` → `{ok: true}`; every session of the account ends. */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const ip = clientIp(request, ctx.config);
  const input = await readJson(request, resetPasswordSchema, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  const answer = await resetPassword(ctx, input, ip);
  return Response.json(answer, { headers: { "set-cookie": clearedSessionCookie(ctx.config) } });
});
