import { accountSummary } from "@/lib/accounts/service";
import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/account (session): the dashboard's account panel. */
export const GET = route({ auth: "session" }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await accountSummary(ctx, user.id));
});
