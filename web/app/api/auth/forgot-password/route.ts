import { forgotPasswordSchema } from "@/lib/accounts/inputs";
import { countForgotPasswordRequest, requestPasswordReset } from "@/lib/accounts/password";
import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/**
 * POST /api/auth/forgot-password `{email}` → `{sent: true}`, whether or not an account has the address: the
 * lookup and the mail run after the answer, so its time tells nothing either.
 */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  await countForgotPasswordRequest(ctx, clientIp(request, ctx.config));
  const input = await readJson(request, forgotPasswordSchema, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  void requestPasswordReset(ctx, input).catch((err: unknown) =>
    ctx.logger.error({ err }, "password reset mail failed"),
  );
  return Response.json({ sent: true });
});
