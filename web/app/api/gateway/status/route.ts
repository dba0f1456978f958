export const dynamic = "force-dynamic";

import { getGatewayStatus } from "@/lib/health/gateway-status";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

/**
 * GET /api/gateway/status (session): `{health, healthDetail, sessions, cron}` of the user's newest agent;
 * without an agent 200 `unreachable` with `healthDetail.error` `no agent`.
 */
export const GET = route({ auth: { area: "agent", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await getGatewayStatus(ctx, user.id), { headers: { "cache-control": "no-store" } });
});
