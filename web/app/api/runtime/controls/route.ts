export const dynamic = "force-dynamic";

import { runtimeRoute } from "@/lib/runtime/routes";

/** GET /api/runtime/controls (session or key with agent:read): `{enabled}`, so the dashboard offers lifecycle buttons only when they work. */
export const GET = runtimeRoute({ auth: { area: "agent", access: "read" } }, async (_request, ctx) =>
  Response.json({ enabled: ctx.config.NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS }),
);
