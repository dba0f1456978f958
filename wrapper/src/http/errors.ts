import { HttpError, isHttpError } from "@svc/common";
import type { ErrorRequestHandler } from "express";
import type { Logger } from "pino";

/**
 * The wrapper's error codes. Its error body `{ok: false, error}` carries only the message; the code names
 * the failure for logs and for the one mapper below.
 */
export const badRequest = (message: string) => new HttpError(400, "bad_request", message);
export const unauthorized = () => new HttpError(401, "unauthorized", "unauthorized");
export const notFound = (message: string) => new HttpError(404, "not_found", message);
export const tooLarge = (message: string) => new HttpError(413, "payload_too_large", message);
/** A step of the wrapper's own work failed (restart, stop, reading or writing the configuration). */
export const failed = (message: string) => new HttpError(500, "failed", message);
/** The runtime (its RPC or CLI) failed or answered something unusable. */
export const runtimeFailed = (message: string) => new HttpError(502, "runtime_failed", message);
/** The runtime is not up to answer (stopped, starting, crashed), or this wrapper's runtime has no such API. */
export const runtimeUnavailable = (message: string) => new HttpError(503, "runtime_unavailable", message);

/**
 * The wrapper's one error mapper: HttpError -> its status and `{ok: false, error: message}`; any other
 * client error Express raises (4xx with `expose`) likewise; anything else a logged 500 with a generic
 * message. Mounted once, last, by the app (tests mount it behind the router they test).
 */
export function wrapperErrorMapper(logger?: Logger): ErrorRequestHandler {
  return (err, _req, res, next) => {
    if (res.headersSent) return next(err);
    if (isHttpError(err)) {
      res.status(err.status).json({ ok: false, error: err.message });
      return;
    }
    const status = (err as { status?: unknown }).status;
    if ((err as { expose?: unknown }).expose === true && typeof status === "number" && status < 500) {
      res.status(status).json({ ok: false, error: (err as Error).message });
      return;
    }
    logger?.error({ err }, "unhandled error");
    res.status(500).json({ ok: false, error: "internal error" });
  };
}
