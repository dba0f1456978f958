/**
 * `GET /metrics`: the registry in Prometheus text format. With a token configured (METRICS_TOKEN), the
 * scraper must send `Authorization: Bearer <token>` (compared in constant time); otherwise 401.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { bearerCredential } from "../bearer";
import { safeEqual } from "../crypto";
import { metricsRegistry } from "./registry";

export interface MetricsEndpointOptions {
  /** METRICS_TOKEN: when set, the Bearer token a scrape must present. */
  token?: string;
  /** Brings gauges read from elsewhere (the database) up to date before each scrape. */
  refresh?: () => Promise<void>;
  /** A failed refresh: the scrape still answers, with the gauges' previous values. */
  onRefreshError?: (err: unknown) => void;
}

export interface MetricsAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** True when the request may read the metrics. */
export function metricsAuthorized(
  authorization: string | null | undefined,
  token: string | undefined,
): boolean {
  if (!token) return true;
  const presented = bearerCredential(authorization);
  return presented !== null && safeEqual(presented, token);
}

/** The answer to a scrape with this Authorization header. */
export async function scrapeMetrics(
  authorization: string | null | undefined,
  options: MetricsEndpointOptions,
): Promise<MetricsAnswer> {
  if (!metricsAuthorized(authorization, options.token)) {
    return {
      status: 401,
      headers: { "content-type": "text/plain; charset=utf-8", "www-authenticate": 'Bearer realm="metrics"' },
      body: "metrics require Authorization: Bearer <METRICS_TOKEN>\n",
    };
  }
  if (options.refresh) {
    try {
      await options.refresh();
    } catch (err) {
      options.onRefreshError?.(err);
    }
  }
  const registry = metricsRegistry();
  return {
    status: 200,
    headers: { "content-type": registry.contentType, "cache-control": "no-store" },
    body: await registry.metrics(),
  };
}

/** The endpoint as a Node (and Express) handler. */
export function metricsHandler(options: MetricsEndpointOptions) {
  return (req: IncomingMessage, res: ServerResponse, next?: (err?: unknown) => void): void => {
    scrapeMetrics(req.headers.authorization, options).then(
      (answer) => {
        res.writeHead(answer.status, answer.headers);
        res.end(answer.body);
      },
      (err: unknown) => {
        if (next) next(err);
        else {
          res.writeHead(500, { "content-type": "text/plain; charset=utf-8" });
          res.end("metrics could not be collected\n");
        }
      },
    );
  };
}

/** The endpoint as a fetch-style handler (Next.js route handlers). */
export async function metricsResponse(request: Request, options: MetricsEndpointOptions): Promise<Response> {
  const answer = await scrapeMetrics(request.headers.get("authorization"), options);
  return new Response(answer.body, { status: answer.status, headers: answer.headers });
}
