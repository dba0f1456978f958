import { HttpError } from "@svc/common";

/**
 * The web http layer's failures (request bodies, the same-origin check), one constructor per code. Apart
 * from ./errors.ts, which maps them, so ./body.ts and ./origin.ts need not import the mapper.
 */
export const payloadTooLarge = () => new HttpError(413, "payload_too_large", "request body is too large");
export const badContentType = () =>
  new HttpError(400, "bad_content_type", "Content-Type must be application/json");
export const invalidJson = () => new HttpError(400, "invalid_json", "request body is not valid JSON");
export const invalidBody = () => new HttpError(400, "invalid_body", "request body must be a JSON object");
/**
 * A request the route refuses as it stands; about one field, `field` is its JSON path (the error body
 * carries it, so a form shows the message beside that field) and the message names it in words.
 */
export const invalidRequest = (message: string, field?: string) =>
  new HttpError(400, "invalid_request", message, field ? { field } : undefined);
export const crossSiteRequest = () => new HttpError(403, "cross_site_request", "cross-site request refused");
