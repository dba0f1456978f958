export const dynamic = "force-dynamic";

import { route } from "@/lib/infra/http/errors";
import { runtimeMaintenance } from "@/lib/runtime/routes";

/** POST /api/runtime/maintenance (session or key with agent:write) `{action}`: `restart` (default) or `factory-reset`; else 400. */
export const POST = route(
  { auth: { area: "agent", access: "write" }, errorShape: "gateway" },
  runtimeMaintenance,
);
