import { assessWebHealth, sampleHost } from "@/lib/health/service";
import { route } from "@/lib/infra/http/errors";

export const dynamic = "force-dynamic";

/** GET /api/health: always 200; `health` is healthy, degraded or unhealthy from CPU and memory. */
export const GET = route({ auth: "public" }, async () =>
  Response.json(assessWebHealth(sampleHost()), { headers: { "cache-control": "no-store" } }),
);
