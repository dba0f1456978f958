/**
 * Request metrics of every service: `http_requests_total` and `http_request_duration_seconds`, labelled by
 * method, route template (`/api/platform-jobs/:jobId`, never the raw path with its ids) and status.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { counter, histogram, secondsSince } from "./registry";

type HttpLabel = "method" | "route" | "status";

/** The route label of a request no route took (404s, requests refused before a route matched). */
export const UNMATCHED_ROUTE = "unmatched";

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

function httpRequests() {
  return counter<HttpLabel>({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route template and status",
    labelNames: ["method", "route", "status"],
  });
}

function httpDuration() {
  return histogram<HttpLabel>({
    name: "http_request_duration_seconds",
    help: "Time from a request's arrival to the end of its response, by method, route template and status",
    labelNames: ["method", "route", "status"],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  });
}

/** Records one answered request. Unknown methods are counted as `OTHER` (clients choose them). */
export function recordHttpRequest(method: string, route: string, status: number, seconds: number): void {
  const upper = method.toUpperCase();
  const labels = { method: METHODS.has(upper) ? upper : "OTHER", route, status: String(status) };
  httpRequests().inc(labels);
  httpDuration().observe(labels, seconds);
}

/** Records the request when its response finishes, under the template `route()` gives then. */
export function observeHttpRequest(req: IncomingMessage, res: ServerResponse, route: () => string): void {
  const started = process.hrtime.bigint();
  res.once("finish", () => {
    recordHttpRequest(req.method ?? "GET", route(), res.statusCode, secondsSince(started));
  });
}

/** What Express leaves on a request and response that the middleware reads (no Express types here). */
type ExpressRequest = IncomingMessage & { route?: { path?: unknown } };
type ExpressResponse = ServerResponse & { locals?: { routeTemplate?: unknown } };

/**
 * Express middleware recording every request. The route label is the matched route's path (the services'
 * routers declare full paths), or `res.locals.routeTemplate` set by a handler mounted with `use` (a
 * proxy), or `unmatched`.
 */
export function httpMetricsMiddleware() {
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    observeHttpRequest(req, res, () => routeTemplateOf(req as ExpressRequest, res as ExpressResponse));
    next();
  };
}

function routeTemplateOf(req: ExpressRequest, res: ExpressResponse): string {
  const path = req.route?.path;
  if (typeof path === "string") return path;
  const set = res.locals?.routeTemplate;
  return typeof set === "string" ? set : UNMATCHED_ROUTE;
}
