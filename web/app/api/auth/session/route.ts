import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { sessionUserOf } from "@/lib/sessions/service";

export const dynamic = "force-dynamic";

/** GET /api/auth/session: always 200, `{user: {id, name, email, isAdmin}}` or `{user: null}`. */
export const GET = route({ auth: "public" }, async (request: Request) => {
  const found = await sessionUserOf(webContext(), request);
  const user = found && { id: found.id, name: found.name, email: found.email, isAdmin: found.isAdmin };
  return Response.json({ user }, { headers: { "cache-control": "no-store" } });
});
