import { type Clock, systemClock } from "@svc/common";
import type { Database } from "@svc/db";
import { Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import { parseBody } from "../http/body";
import { validateKeyBody } from "./inputs";
import { validateApiKey } from "./service";

export interface ApiKeyRoutesOptions {
  /** `config.INTERNAL_API_KEY`; unset or empty makes the protected routes answer 500. */
  internalApiKey: string | undefined;
  clock?: Clock;
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
