import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";
import { callSkillTool } from "@/lib/skills/service";

export const dynamic = "force-dynamic";

interface ToolRoute {
  params: Promise<{ skillId: string; toolName: string }>;
}

/**
 * POST /api/mcp/{skillId}/call/{toolName} (session): the tool's parameters directly or under `parameters`
 * (may be empty) → `{skillId, toolName, success: true, result}`; a failed call or a bad body
 * `{…, success: false, error}`.
 */
export const POST = route(
  { auth: { area: "skills", access: "write" } },
  async (request: Request, { params }: ToolRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const { skillId, toolName } = await params;
    return Response.json(await callSkillTool(ctx, user.id, skillId, toolName, request));
  },
);
