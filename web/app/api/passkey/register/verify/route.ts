import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { registerVerifyBody } from "@/lib/passkeys/inputs";
import { verifyRegistration } from "@/lib/passkeys/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** POST /api/passkey/register/verify (session): `{credential, challenge, label?}` -> `{ok: true}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  const input = await readJson(request, registerVerifyBody);
  await verifyRegistration(ctx, user.id, input);
  return Response.json({ ok: true });
});
