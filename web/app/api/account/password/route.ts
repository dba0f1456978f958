import { changePasswordSchema } from "@/lib/accounts/inputs";
import { changePassword } from "@/lib/accounts/password";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSession } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** POST /api/account/password (session) `{currentPassword, newPassword}` → `{ok, sessionsEnded}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const { sessionId, user } = await requireSession(ctx, request);
  const input = await readJson(request, changePasswordSchema);
  return Response.json(await changePassword(ctx, { sessionId, userId: user.id }, input));
});
