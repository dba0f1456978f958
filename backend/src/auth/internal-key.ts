import { bearerCredential, safeEqual } from "@svc/common";
import type { RequestHandler } from "express";
import { internalKeyRequired, internalKeyUnset, invalidInternalKey } from "./errors";

/**
 * Internal API key: `Authorization: Bearer <INTERNAL_API_KEY>`,
 * compared in constant time. 401 when the header or its Bearer prefix is missing, 500 when the key is not
 * configured, 403 when it does not match.
 */
export function requireInternalKey(internalApiKey: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const presented = bearerCredential(req.get("authorization"));
    if (presented === null) throw internalKeyRequired();
    if (!internalApiKey) throw internalKeyUnset();
    if (!safeEqual(presented, internalApiKey)) throw invalidInternalKey();
    next();
  };
}
