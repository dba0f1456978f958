import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { registrationOptions } from "@/lib/passkeys/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** POST /api/passkey/register/options (session): `{options, challenge}` for navigator.credentials.create. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await registrationOptions(ctx, user), { headers: { "cache-control": "no-store" } });
});
