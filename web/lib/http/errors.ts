import { HttpError, isHttpError, randomId } from "@svc/common";
import { webContext } from "../context";

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

/** Wraps a route handler so every failure becomes a spec-shaped JSON error. */
export function route<A extends unknown[]>(
  handler: (...args: A) => Promise<Response> | Response,
  fallbackMessage?: string,
): (...args: A) => Promise<Response> {
  return async (...args: A) => {
    try {
      return await handler(...args);
    } catch (err) {
      return toErrorResponse(err, fallbackMessage);
    }
  };
}

export { HttpError };
