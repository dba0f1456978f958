import { trialStatus } from "@/lib/accounts/service";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/trial (session): `{active, startedAt, endsAt, daysRemaining}`. */
export const GET = route({ auth: { area: "billing", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await trialStatus(ctx, user.id));
});
