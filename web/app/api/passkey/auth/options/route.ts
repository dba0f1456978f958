import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readJson } from "@/lib/infra/http/body";
import { clientIp } from "@/lib/infra/http/client-ip";
import { route } from "@/lib/infra/http/errors";
import { authOptionsBody } from "@/lib/passkeys/inputs";
import { authenticationOptions, countPasskeyAuthOptions } from "@/lib/passkeys/service";

export const dynamic = "force-dynamic";

/**
 * POST /api/passkey/auth/options (public): `{identifier}` -> `{options, challenge}` for
 * navigator.credentials.get; 429 beyond the per-IP limit, counted before anything else.
 */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  await countPasskeyAuthOptions(ctx, clientIp(request, ctx.config));
  const input = await readJson(request, authOptionsBody, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  return Response.json(await authenticationOptions(ctx, input), { headers: { "cache-control": "no-store" } });
});
