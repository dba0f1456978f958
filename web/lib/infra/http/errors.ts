import { HttpError, isHttpError, randomId } from "@svc/common";
import { authorizeRequest, declareRouteAuth, type RouteAuth } from "../../sessions/require";
import { webContext } from "../context";
import { withRequestMetrics } from "../metrics";
import { declareContentLength } from "./content-length";
import { assertSameOrigin } from "./origin";

/**
 * The web's two error bodies: `web` `{error: message, code}` (the web API's own routes) and `gateway`
 * `{error: code, message}` (the runtime paths, which answer in the backend's shape they forward).
 */
export type ErrorShape = "web" | "gateway";

/** The error body of `shape` with the status. */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  extra?: Record<string, unknown>,
  shape: ErrorShape = "web",
): Response {
  const body = shape === "gateway" ? { error: code, message, ...extra } : { error: message, code, ...extra };
  return Response.json(body, { status });
}

/**
 * The web's one error mapper: HttpError as given (`retryAfterSeconds` also as `Retry-After`), anything
 * else a logged 500 carrying a request id.
 */
export function toErrorResponse(
  err: unknown,
  fallbackMessage = "internal server error",
  shape: ErrorShape = "web",
): Response {
  if (isHttpError(err)) {
    const response = errorResponse(err.status, err.code, err.message, err.extra, shape);
    // A refusal that says when to come back says it in the header too.
    const retryAfter = err.extra?.retryAfterSeconds;
    if (typeof retryAfter === "number") response.headers.set("retry-after", String(retryAfter));
    // An API key's refusals in the words of RFC 6750, which bearer-token clients read.
    const scope = err.extra?.scope;
    if (err.code === "insufficient_scope" && typeof scope === "string") {
      response.headers.set("www-authenticate", `Bearer error="insufficient_scope", scope="${scope}"`);
    } else if (err.code === "api_key_expired") {
      response.headers.set("www-authenticate", 'Bearer error="invalid_token", error_description="expired"');
    }
    return response;
  }
  const requestId = randomId(12);
  try {
    webContext().logger.error({ err, requestId }, "unhandled error");
  } catch {
    // logging must never mask the answer
  }
  return errorResponse(500, "internal", fallbackMessage, { requestId }, shape);
}

export interface RouteOptions {
  /**
   * Who may call the route (../../sessions/require.ts): `"public"`, `"session"` (account, API key, passkey and
   * password routes), or `{area, access}` for a session or an API key with that scope. Required, so no
   * route can leave it out; every route file's declaration is checked against the OpenAPI document.
   */
  auth: RouteAuth;
  /** The message of an unexpected failure's 500 (default "internal server error"). */
  fallbackMessage?: string;
  /**
   * Accept state-changing requests from other sites. Only for endpoints other servers post to by design
   * (webhooks, the identity provider's security events), which authenticate the sender themselves.
   */
  allowCrossSite?: boolean;
  /** The error body's shape (default `web`); the v1 gateway's routes answer in the `gateway` shape. */
  errorShape?: ErrorShape;
}

/**
 * Wraps a route handler, its declaration first (`route({ auth: "session" }, handler)`): a state-changing request from another site is refused first (403, see
 * ./origin.ts) unless the route opts out, then the caller is authorized as the route declares
 * (../../sessions/require.ts), and every failure becomes a JSON error body. Every answer is counted in
 * the request metrics under the route's template (../metrics), and a Content-Length it sets reaches the
 * client (./content-length.ts).
 */
export function route<R extends unknown[]>(
  options: RouteOptions,
  handler: (request: Request, ...rest: R) => Promise<Response> | Response,
): (request: Request, ...rest: R) => Promise<Response> {
  const wrapped = withRequestMetrics(async (request: Request, ...rest: R) => {
    try {
      const ctx = webContext();
      if (!options.allowCrossSite) assertSameOrigin(request, ctx.config.PUBLIC_URL);
      await authorizeRequest(ctx, request, options.auth);
      return declareContentLength(await handler(request, ...rest));
    } catch (err) {
      return toErrorResponse(err, options.fallbackMessage, options.errorShape);
    }
  });
  return declareRouteAuth(wrapped, options.auth);
}

export { HttpError };
