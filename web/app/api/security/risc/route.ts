import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";
import { receiveSecurityEvent } from "@/lib/risc/service";

export const dynamic = "force-dynamic";

/** POST /api/security/risc: body is the raw security event token; 202 `{ok: true}` (`duplicate: true` on replay). */
export const POST = route(async (request: Request) => {
  const receipt = await receiveSecurityEvent(webContext(), await request.text());
  return Response.json(receipt, { status: 202 });
});
