import { webContext } from "@/lib/infra/context";
import { readCookie } from "@/lib/infra/http/cookies";
import { route } from "@/lib/infra/http/errors";
import { clearedSessionCookie, deleteSession, SESSION_COOKIE } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** POST /api/auth/signout: deletes the session row, clears the cookie; always `{ok: true}`. */
export const POST = route({ auth: "public" }, async (request: Request) => {
  const ctx = webContext();
  await deleteSession(ctx, readCookie(request, SESSION_COOKIE));
  return Response.json({ ok: true }, { headers: { "set-cookie": clearedSessionCookie(ctx.config) } });
});
