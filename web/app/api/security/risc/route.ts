import { webContext } from "@/lib/infra/context";
import { MAX_PUBLIC_BODY_BYTES, readText } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { receiveSecurityEvent } from "@/lib/risc/service";

export const dynamic = "force-dynamic";

/**
 * POST /api/security/risc: body is the raw security event token (64 KB at most, 413 above); 202
 * `{ok: true}` (`duplicate: true` on replay). The identity provider posts here from its own servers, so
 * cross-site requests are accepted: the token's signature is what authenticates it.
 */
export const POST = route({ auth: "public", allowCrossSite: true }, async (request: Request) => {
  const token = await readText(request, { maxBytes: MAX_PUBLIC_BODY_BYTES });
  return Response.json(await receiveSecurityEvent(webContext(), token), { status: 202 });
});
