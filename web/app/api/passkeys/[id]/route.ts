import { webContext } from "@/lib/infra/context";
import { parseWith } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { passkeyIdParam } from "@/lib/passkeys/inputs";
import { deletePasskey } from "@/lib/passkeys/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** DELETE /api/passkeys/[id] (session): removes an own passkey -> `{ok: true}`; anyone else's is 404. */
export const DELETE = route(
  { auth: "session" },
  async (request: Request, context: { params: Promise<{ id: string }> }) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const id = parseWith(passkeyIdParam, (await context.params).id);
    await deletePasskey(ctx, user.id, id);
    return Response.json({ ok: true });
  },
);
