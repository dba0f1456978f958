export const dynamic = "force-dynamic";

import { metricsResponse } from "@svc/common/metrics/index";
import { webContext } from "@/lib/context";
import { route } from "@/lib/http/errors";

/** GET /metrics: Prometheus metrics of this web process (Bearer METRICS_TOKEN when it is set). */
export const GET = route(async (request: Request) =>
  metricsResponse(request, { token: webContext().config.METRICS_TOKEN }),
);
