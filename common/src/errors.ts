/**
 * The one way a service reports a client-visible failure. Each service has one mapper that turns it into
 * that service's error body (web `{error: message, code}`, backend `{error: code, message}`, wrapper
 * `{ok: false, error}`).
 */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly extra: Record<string, unknown> | undefined;

  constructor(status: number, code: string, message: string, extra?: Record<string, unknown>) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
    this.extra = extra;
  }
}

export function isHttpError(err: unknown): err is HttpError {
  return err instanceof HttpError;
}

/** Thrown when configuration (environment variables) is missing or malformed. */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(problems: string[]) {
    super(`invalid configuration: ${problems.join("; ")}`);
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/**
 * A request Express or its body parser could not read — a body in a charset or content encoding it does not
 * decode, shorter than its Content-Length, aborted; a path parameter that is not valid percent-encoding — as
 * the HttpError of its 4xx status (the parser's own words when it marks them safe to show); null for
 * anything else. Services map "not JSON" and "too large" themselves first, in their own words.
 */
export function unreadableRequest(err: unknown): HttpError | null {
  if (typeof err !== "object" || err === null || isHttpError(err)) return null;
  const { status, expose, message } = err as { status?: unknown; expose?: unknown; message?: unknown };
  if (typeof status !== "number" || status < 400 || status > 499) return null;
  const code =
    status === 413 ? "payload_too_large" : status === 415 ? "unsupported_media_type" : "invalid_request";
  if (expose === true && typeof message === "string" && message) return new HttpError(status, code, message);
  if (err instanceof URIError) {
    return new HttpError(400, "invalid_request", "a path parameter is not valid percent-encoding");
  }
  return new HttpError(status, code, "the request could not be read");
}
