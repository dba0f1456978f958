export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";

/** GET /api/runtime/controls (session or key with agent:read): `{enabled}`, so the dashboard offers lifecycle buttons only when they work. */
export const GET = route({ auth: { area: "agent", access: "read" }, errorShape: "gateway" }, async () =>
  Response.json({ enabled: webContext().config.NEXT_PUBLIC_ENABLE_RUNTIME_CONTROLS }),
);
