import { isHttpError } from "@svc/common";
import type { ErrorRequestHandler, RequestHandler } from "express";
import type { Logger } from "pino";

/** Unknown routes: JSON 404 rather than Express's HTML page. */
export const notFound: RequestHandler = (req, res) => {
  res.status(404).json({ error: "not_found", message: `no route for ${req.method} ${req.path}` });
};

/**
 * The backend's one error mapper: HttpError -> `{error: code, message, ...extra}`; body-parser failures ->
 * 400/413 naming the problem; anything else -> 500 with a generic message, logged with the request id.
 */
export function errorMapper(logger: Logger): ErrorRequestHandler {
  return (err, req, res, _next) => {
    if (isHttpError(err)) {
      res.status(err.status).json({ error: err.code, message: err.message, ...err.extra });
      return;
    }
    const type = (err as { type?: string }).type;
    if (type === "entity.parse.failed") {
      res.status(400).json({ error: "invalid_json", message: "request body is not valid JSON" });
      return;
    }
    if (type === "entity.too.large") {
      res.status(413).json({ error: "payload_too_large", message: "request body is too large" });
      return;
    }
    logger.error({ err, requestId: (req as { id?: string }).id }, "unhandled error");
    res.status(500).json({ error: "internal", message: "internal server error" });
  };
}
