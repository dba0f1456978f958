import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { setupStatusOf } from "@/lib/setup/service";

export const dynamic = "force-dynamic";

/**
 * GET /api/setup (session): what this server can do. Everyone: `{role, available, unavailable}` (plain
 * words); an admin also `where` and `capabilities` (each one's state and the variables to set, never their
 * values).
 */
export const GET = route({ auth: { area: "agent", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await setupStatusOf(ctx, user), { headers: { "cache-control": "no-store" } });
});
