import { bearerCredential, HttpError, safeEqual } from "@svc/common";
import type { RequestHandler } from "express";

/**
 * Internal API key (spec "Internal API key" and `requireAuth`): `Authorization: Bearer <INTERNAL_API_KEY>`,
 * compared in constant time. 401 when the header or its Bearer prefix is missing, 500 when the key is not
 * configured, 403 when it does not match.
 */
export function requireInternalKey(internalApiKey: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const presented = bearerCredential(req.get("authorization"));
    if (presented === null)
      throw new HttpError(401, "unauthorized", "Authorization: Bearer <internal API key> required");
    if (!internalApiKey) throw new HttpError(500, "internal_key_unset", "INTERNAL_API_KEY is not configured");
    if (!safeEqual(presented, internalApiKey))
      throw new HttpError(403, "forbidden", "invalid internal API key");
    next();
  };
}
