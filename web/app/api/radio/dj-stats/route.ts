import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { getDjStats } from "@/lib/radio/service";
import { requireSessionUser } from "@/lib/sessions/require";

export const dynamic = "force-dynamic";

/** GET /api/radio/dj-stats (session): the linked wallet's DJ profile and stats (one 6 s budget). */
export const GET = route({ auth: { area: "chain", access: "read" } }, async (request: Request) => {
  const ctx = webContext();
  const user = await requireSessionUser(ctx, request);
  return Response.json(await getDjStats(ctx, user.id), { headers: { "cache-control": "no-store" } });
});
