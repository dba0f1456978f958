import { billingOverviewOf } from "@/lib/gateway/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/gateway/billing (session): `{credit, cardConfigured, creditPack, mppConfigured, plugins[]}`. */
export const GET = route({ auth: { area: "billing", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await billingOverviewOf(ctx, user.id), { headers: { "cache-control": "no-store" } });
});
