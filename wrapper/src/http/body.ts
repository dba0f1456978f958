import express, { type RequestHandler } from "express";
import { badRequest, tooLarge } from "./errors";

export interface BodyOptions {
  /** Largest body accepted (body-parser's `limit`, e.g. "16kb"). */
  limit: string;
  /** The 413 message (default "body too large"). */
  tooLargeMessage?: string;
}

/** Body-parser's failures as the wrapper's HttpErrors (400 bad JSON, 413 too large); others unchanged. */
function translated(parse: RequestHandler, options: BodyOptions): RequestHandler {
  return (req, res, next) =>
    parse(req, res, (err?: unknown) => {
      const type = (err as { type?: string } | undefined)?.type;
      if (type === "entity.parse.failed") next(badRequest("body is not valid JSON"));
      else if (type === "entity.too.large") next(tooLarge(options.tooLargeMessage ?? "body too large"));
      else next(err);
    });
}

/**
 * The wrapper's one JSON body parser. `strict: false` accepts any JSON value (the route checks the shape);
 * failures reach the error mapper as HttpErrors.
 */
export function jsonBody(options: BodyOptions & { strict?: boolean }): RequestHandler {
  return translated(express.json({ limit: options.limit, strict: options.strict ?? true }), options);
}

/** The same for HTML form posts (`application/x-www-form-urlencoded`). */
export function formBody(options: BodyOptions): RequestHandler {
  return translated(express.urlencoded({ extended: false, limit: options.limit }), options);
}
