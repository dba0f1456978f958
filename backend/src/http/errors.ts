import type { IncomingMessage, ServerResponse } from "node:http";
import { HttpError, isHttpError, unreadableRequest } from "@svc/common";
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "pino";

/** Unknown routes: JSON 404 rather than Express's HTML page. */
export const notFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: "not_found", message: `no route for ${req.method} ${req.path}` });
};

/** Request bodies every area reads: not JSON, too large, or not the shape asked for (naming the field). */
export const invalidJson = () => new HttpError(400, "invalid_json", "request body is not valid JSON");
export const payloadTooLarge = () => new HttpError(413, "payload_too_large", "request body is too large");
export const invalidRequest = (message: string) => new HttpError(400, "invalid_request", message);

export interface ErrorAnswer {
  status: number;
  body: { error: string; message: string; [key: string]: unknown };
  /** Not a client-visible failure: the caller logs it (the body says only "internal server error"). */
  unexpected: boolean;
}

/**
 * The backend's one mapping of a failure to its answer: HttpError -> `{error: code, message, ...extra}`;
 * body-parser failures -> 400/413 naming the problem, and any other request Express could not read (charset,
 * content encoding, length, a path parameter's percent-encoding) -> its 4xx (`unreadableRequest`); anything else -> 500 with a generic message. Used
 * by `answerError` below and the proxy's WebSocket refusals.
 */
export function errorAnswer(err: unknown): ErrorAnswer {
  const type = (err as { type?: string } | null | undefined)?.type;
  if (type === "entity.parse.failed") return errorAnswer(invalidJson());
  if (type === "entity.too.large") return errorAnswer(payloadTooLarge());
  const unreadable = unreadableRequest(err);
  if (unreadable) return errorAnswer(unreadable);
  if (isHttpError(err)) {
    return {
      status: err.status,
      body: { error: err.code, message: err.message, ...err.extra },
      unexpected: false,
    };
  }
  return { status: 500, body: { error: "internal", message: "internal server error" }, unexpected: true };
}

/** OpenAI's error `type` for a status (what OpenAI-compatible clients read next to the message). */
function openAiErrorType(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 403) return "permission_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "api_error";
  return "invalid_request_error";
}

/**
 * The same answer in OpenAI's error shape, `{error: {message, type, param, code, ...extra}}`, for the
 * routes OpenAI clients call (their SDKs show `error.message`; our flat `{error: "<code>"}` would show as
 * the bare code).
 */
export function openAiErrorBody(answer: Pick<ErrorAnswer, "status" | "body">): {
  error: Record<string, unknown>;
} {
  const { error: code, message, ...extra } = answer.body;
  return { error: { message, type: openAiErrorType(answer.status), param: null, code, ...extra } };
}

/** Marks a request as an OpenAI-compatible one: the error mapper answers it in OpenAI's error shape. */
export const openAiErrorFormat: RequestHandler = (_req, res, next) => {
  res.locals.errorFormat = "openai";
  next();
};

/**
 * A failure's answer (errorAnswer) on any response, Express's or a plain node one: `retryAfterSeconds` is
 * also sent as `Retry-After`; an unexpected error is logged with the request id, and so is the `cause` of a
 * 5xx HttpError (kept out of the answer, as a database error's text can carry SQL). Requests marked by
 * `openAiErrorFormat` get the body in OpenAI's shape.
 */
export function answerError(
  logger: Logger | undefined,
  err: unknown,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const answer = errorAnswer(err);
  const { status, body, unexpected } = answer;
  const requestId = (req as { id?: string }).id;
  if (unexpected) logger?.error({ err, requestId }, "unhandled error");
  else if (status >= 500 && (err as { cause?: unknown }).cause !== undefined) {
    logger?.error(
      { err: (err as { cause: unknown }).cause, code: body.error, requestId },
      String(body.message),
    );
  }
  const openAi = (res as { locals?: { errorFormat?: string } }).locals?.errorFormat === "openai";
  // A refusal that says when to come back says it in the header too.
  const retryAfter = typeof body.retryAfterSeconds === "number" ? String(body.retryAfterSeconds) : undefined;
  sendJson(
    res,
    status,
    openAi ? openAiErrorBody(answer) : body,
    retryAfter ? { "retry-after": retryAfter } : {},
  );
}

/** A JSON answer as Express's `res.json` writes it; a response already under way is cut off instead. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
  });
  res.end(text);
}

/** The backend's Express error mapper: `answerError`. */
export function errorMapper(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => answerError(logger, err, req, res);
}
