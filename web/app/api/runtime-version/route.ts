export const dynamic = "force-dynamic";

import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";
import { runtimeVersion } from "@/lib/runtime/runtime-version";

/** GET /api/runtime-version (no auth): the backend's runtime version, or a fallback from RUNTIME_IMAGE. */
export const GET = route({ auth: "public" }, async () =>
  Response.json(await runtimeVersion(webContext()), { headers: { "cache-control": "no-store" } }),
);
