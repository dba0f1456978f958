import { HttpError, isHttpError, randomId } from "@svc/common";
import { webContext } from "../context";
import { assertSameOrigin } from "./origin";

/** `{error, code}` with the status: the web API's error body (the gateway has its own shape). */
export function errorResponse(
  status: number,
  code: string,
  message: string,
  extra?: Record<string, unknown>,
): Response {
  return Response.json({ error: message, code, ...extra }, { status });
}

/** Maps a thrown error to a response: HttpError as given, anything else a logged 500. */
export function toErrorResponse(err: unknown, fallbackMessage = "internal server error"): Response {
  if (isHttpError(err)) return errorResponse(err.status, err.code, err.message, err.extra);
  const requestId = randomId(12);
  try {
    webContext().logger.error({ err, requestId }, "unhandled error");
  } catch {
    // logging must never mask the answer
  }
  return errorResponse(500, "internal", fallbackMessage, { requestId });
}

export interface RouteOptions {
  /** The message of an unexpected failure's 500 (default "internal server error"). */
  fallbackMessage?: string;
  /**
   * Accept state-changing requests from other sites. Only for endpoints other servers post to by design
   * (webhooks, the identity provider's security events), which authenticate the sender themselves.
   */
  allowCrossSite?: boolean;
}

/**
 * Wraps a route handler: a state-changing request from another site is refused first (403, see
 * ./origin.ts) unless the route opts out, and every failure becomes a spec-shaped JSON error.
 */
export function route<R extends unknown[]>(
  handler: (request: Request, ...rest: R) => Promise<Response> | Response,
  options: RouteOptions = {},
): (request: Request, ...rest: R) => Promise<Response> {
  return async (request: Request, ...rest: R) => {
    try {
      if (!options.allowCrossSite) assertSameOrigin(request, webContext().config.PUBLIC_URL);
      return await handler(request, ...rest);
    } catch (err) {
      return toErrorResponse(err, options.fallbackMessage);
    }
  };
}

export { HttpError };
