/**
 * The web's request metrics. Every API route handler is wrapped by `route()` (lib/infra/http/errors.ts), which
 * records its answer here under the route's template: the request path with each dynamic segment's value
 * replaced by its `[name]` from the route's params (`/api/jobs/job_1…` → `/api/jobs/[jobId]`), so ids never
 * become label values. The registry is the process's one (see @svc/common/metrics): server.ts, the route
 * bundles and `app/metrics/route.ts` share it.
 */
import { recordHttpRequest, secondsSince } from "@svc/common/metrics/index";

type Params = Record<string, string | string[] | undefined>;

/**
 * The route template of a request answered by a handler that got `context` (Next passes `{params}`, a
 * promise of the dynamic segments' values in path order; static routes get none).
 */
export async function routeTemplateOf(request: Request, context: unknown): Promise<string> {
  const path = pathnameOf(request.url);
  const promised = (context as { params?: Promise<Params> | Params } | undefined)?.params;
  const params = promised ? await promised : undefined;
  if (!params) return path;
  const segments = path.split("/");
  const decoded = segments.map((s) => {
    try {
      return decodeURIComponent(s);
    } catch {
      return s;
    }
  });
  let from = 1;
  for (const [name, value] of Object.entries(params)) {
    if (value === undefined) continue;
    const run = Array.isArray(value) ? value : [value];
    const at = findRun(decoded, run, from);
    if (at === -1) continue;
    const label = Array.isArray(value) ? `[...${name}]` : `[${name}]`;
    segments.splice(at, run.length, label);
    decoded.splice(at, run.length, label);
    from = at + 1;
  }
  return segments.join("/");
}

/**
 * The path of a URL as a Request serializes it (absolute, normalized), as `new URL(url).pathname` reads it
 * without parsing the URL again on every answer.
 */
function pathnameOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  let end = url.length;
  for (const mark of ["?", "#"]) {
    const at = url.indexOf(mark, start);
    if (at !== -1 && at < end) end = at;
  }
  return url.slice(start, end);
}

function findRun(segments: string[], run: string[], from: number): number {
  if (run.length === 0) return -1;
  for (let i = from; i + run.length <= segments.length; i++) {
    if (run.every((part, k) => segments[i + k] === part)) return i;
  }
  return -1;
}

/** Wraps a route handler so each answer is counted and timed (to the response's headers) by template. */
export function withRequestMetrics<R extends unknown[]>(
  handler: (request: Request, ...rest: R) => Promise<Response>,
): (request: Request, ...rest: R) => Promise<Response> {
  return async (request: Request, ...rest: R) => {
    const started = process.hrtime.bigint();
    const response = await handler(request, ...rest);
    try {
      const template = await routeTemplateOf(request, rest[0]);
      recordHttpRequest(request.method, template, response.status, secondsSince(started));
    } catch {
      // metrics never change an answer
    }
    return response;
  };
}
