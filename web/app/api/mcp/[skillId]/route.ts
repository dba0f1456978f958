import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { activateSkill, deactivateSkill } from "@/lib/skills/service";

export const dynamic = "force-dynamic";

interface SkillRoute {
  params: Promise<{ skillId: string }>;
}

/** POST /api/mcp/{skillId} (session): starts the skill's MCP server for the user, `{success, skillId, mcp}`. */
export const POST = route(
  { auth: { area: "skills", access: "write" } },
  async (request: Request, { params }: SkillRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    return Response.json(await activateSkill(ctx, user.id, (await params).skillId));
  },
);

/** DELETE /api/mcp/{skillId} (session): `{success, skillId, message}`. */
export const DELETE = route(
  { auth: { area: "skills", access: "write" } },
  async (request: Request, { params }: SkillRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    return Response.json(await deactivateSkill(ctx, user.id, (await params).skillId));
  },
);
