export const dynamic = "force-dynamic";

import { runtimeRoute } from "@/lib/runtime/routes";
import { requireSessionUser } from "@/lib/sessions/require";

/** GET /api/runtime/controls (session): `{enabled}`, so the dashboard offers lifecycle buttons only when they work. */
export const GET = runtimeRoute(async (request, ctx) => {
  await requireSessionUser(ctx, request);
  return Response.json({ enabled: ctx.config.NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS });
});
