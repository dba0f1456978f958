import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";
import { authVerifyBody } from "@/lib/passkeys/inputs";
import { verifyAuthentication } from "@/lib/passkeys/service";
import { sessionCookie } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** POST /api/passkey/auth/verify (public): `{response, challenge}` -> `{ok: true}` and the session cookie. */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  const input = await readJson(request, authVerifyBody, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  const { token } = await verifyAuthentication(ctx, input, {
    ip: clientIp(request, ctx.config),
    userAgent: request.headers.get("user-agent") ?? undefined,
  });
  return Response.json({ ok: true }, { headers: { "set-cookie": sessionCookie(ctx.config, token) } });
});
