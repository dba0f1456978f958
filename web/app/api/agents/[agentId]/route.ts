import { renameAgentBody } from "@/lib/agents/inputs";
import { renameAgent } from "@/lib/agents/service";
import { webContext } from "@/lib/infra/context";
import { readJson } from "@/lib/infra/http/body";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

interface AgentRoute {
  params: Promise<{ agentId: string }>;
}

/** PATCH /api/agents/{agentId} (session) `{name}`: `{agent}`; another user's agent is 404. */
export const PATCH = route(
  { auth: { area: "agent", access: "write" } },
  async (request: Request, { params }: AgentRoute) => {
    const ctx = webContext();
    const user = await requireSessionUser(ctx, request);
    const input = await readJson(request, renameAgentBody);
    return Response.json({ agent: await renameAgent(ctx, user.id, (await params).agentId, input) });
  },
);
