import { Router } from "express";
import type pg from "pg";
import { checkBackendHealth } from "./service";

/** `GET /health` (no `/api` prefix): 200 when the database answers, 503 otherwise. */
export function healthRoutes(pool: pg.Pool): Router {
  const router = Router();
  router.get("/health", async (_req, res) => {
    const health = await checkBackendHealth(pool);
    res.status(health.status === "ok" ? 200 : 503).json(health);
  });
  return router;
}
