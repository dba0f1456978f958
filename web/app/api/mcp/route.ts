import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { listSkills } from "@/lib/skills/service";

export const dynamic = "force-dynamic";

/** GET /api/mcp (session): `{skills: [{id, label, builtIn, active, mcp}]}`, the user's activations included. */
export const GET = route({ auth: { area: "skills", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(
    { skills: await listSkills(ctx, user.id) },
    { headers: { "cache-control": "no-store" } },
  );
});
