import { type Clock, HttpError, safeEqual, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import { type RequestHandler, Router } from "express";
import { parseBody, validateKeyBody } from "./schema";
import { validateApiKey } from "./service";

export interface ApiKeyRoutesOptions {
  /** `config.INTERNAL_API_KEY`; unset or empty makes the protected routes answer 500. */
  internalApiKey: string | undefined;
  clock?: Clock;
}

/**
 * Internal API key check (spec `requireAuth`): 401 without an `Authorization: Bearer` header, 500 when
 * INTERNAL_API_KEY is unset, 403 when the token does not match (constant-time comparison).
 */
function requireInternalKey(internalApiKey: string | undefined): RequestHandler {
  return (req, _res, next) => {
    const match = /^Bearer (.*)$/i.exec(req.get("authorization") ?? "");
    if (!match) throw new HttpError(401, "unauthorized", "Authorization: Bearer <internal API key> required");
    if (!internalApiKey) throw new HttpError(500, "internal_key_unset", "INTERNAL_API_KEY is not configured");
    if (!safeEqual(match[1], internalApiKey))
      throw new HttpError(403, "forbidden", "invalid internal API key");
    next();
  };
}

/** `POST /api/validate-key` (internal API key) `{key}`: `{valid: true, userId}` or `{valid: false}`. */
export function apiKeyRoutes(db: Database, options: ApiKeyRoutesOptions): Router {
  const deps = { db, clock: options.clock ?? systemClock };
  const router = Router();
  router.post("/api/validate-key", requireInternalKey(options.internalApiKey), async (req, res) => {
    const { key } = parseBody(validateKeyBody, req.body);
    res.json(await validateApiKey(deps, key));
  });
  return router;
}
