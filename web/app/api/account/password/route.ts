import { changePassword } from "@/lib/accounts/password";
import { changePasswordSchema } from "@/lib/accounts/schema";
import { webContext } from "@/lib/context";
import { readJson } from "@/lib/http/body";
import { route } from "@/lib/http/errors";
import { requireSession } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** POST /api/account/password (session) `{currentPassword, newPassword}` → `{ok, sessionsEnded}`. */
export const POST = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const { sessionId, user } = await requireSession(ctx, request);
  const input = await readJson(request, changePasswordSchema);
  return Response.json(await changePassword(ctx, { sessionId, userId: user.id }, input));
});
