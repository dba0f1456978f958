import { webContext } from "@/lib/context";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";
import { authOptionsBody } from "@/lib/passkeys/schema";
import { authenticationOptions } from "@/lib/passkeys/service";

export const dynamic = "force-dynamic";

/** POST /api/passkey/auth/options (public): `{identifier}` -> `{options, challenge}` for navigator.credentials.get. */
export const POST = route(async (request: Request) => {
  const ctx = webContext();
  const input = await readJson(request, authOptionsBody);
  return Response.json(await authenticationOptions(ctx, input), { headers: { "cache-control": "no-store" } });
});
