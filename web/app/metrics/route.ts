export const dynamic = "force-dynamic";

import { metricsResponse } from "@svc/common/metrics/index";
import { webContext } from "@/lib/infra/context";
import { route } from "@/lib/infra/http/errors";

/** GET /metrics: Prometheus metrics of this web process (Bearer METRICS_TOKEN when it is set, checked here). */
export const GET = route({ auth: "public" }, async (request: Request) =>
  metricsResponse(request, { token: webContext().config.METRICS_TOKEN }),
);
