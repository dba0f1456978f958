import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "pino";
import { randomId } from "./ids";

/**
 * Logs one structured line per request when the response finishes: method, path (no query string, which
 * may carry tokens), status, duration, plus any `res.locals.logFields` a handler set (never bodies). Works
 * as Express middleware. `level` is the level of those lines (default info).
 */
export function requestLogger(logger: Logger, level: "info" | "debug" = "info") {
  // Request ids correlate log lines; they are not secrets, so a random per-process prefix and a counter
  // do (a random id per request showed up in the hot path's profile).
  const prefix = randomId(6);
  let counter = 0;
  return (req: IncomingMessage, res: ServerResponse, next: () => void): void => {
    const started = process.hrtime.bigint();
    const requestId = `${prefix}${(counter++).toString(36)}`;
    res.setHeader("x-request-id", requestId);
    (req as IncomingMessage & { id?: string }).id = requestId;
    res.on("finish", () => {
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger[level](
        {
          requestId,
          method: req.method,
          path: (req.url ?? "/").split("?")[0],
          status: res.statusCode,
          durationMs: Math.round(durationMs * 10) / 10,
          ...(res as ServerResponse & { locals?: { logFields?: Record<string, unknown> } }).locals?.logFields,
        },
        "request",
      );
    });
    next();
  };
}
