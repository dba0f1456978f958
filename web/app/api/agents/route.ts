import { listAgents } from "@/lib/agents/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/agents (session): `{agents}` with their names, newest first. */
export const GET = route({ auth: { area: "agent", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { agents: await listAgents(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});
