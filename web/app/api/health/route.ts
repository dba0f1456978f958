import { assessWebHealth, sampleHost } from "@/lib/health/service";

export const dynamic = "force-dynamic";

/** GET /api/health: always 200; `health` is healthy, degraded or unhealthy from CPU and memory. */
export function GET(): Response {
  return Response.json(assessWebHealth(sampleHost()), { headers: { "cache-control": "no-store" } });
}
