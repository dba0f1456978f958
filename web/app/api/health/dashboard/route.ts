export const dynamic = "force-dynamic";

import { checkDashboardHealth } from "@/lib/health/dashboard";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

/**
 * GET /api/health/dashboard (session: it shows the platform's internal services): always 200 with
 * `{status, services: {web, backend, summarizer, database}, checkedAt}`; a service down carries its label.
 */
export const GET = route({ auth: { area: "agent", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  await requireSessionUser(ctx, request);
  return Response.json(await checkDashboardHealth(ctx), { headers: { "cache-control": "no-store" } });
});
