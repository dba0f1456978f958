import type { Database } from "@svc/db";
import { Router } from "express";
import { requireAdmin } from "../auth/admin";
import { requireInternalKey } from "../auth/internal-key";
import { userContextSecret, verifyUserContext } from "../auth/user-context";
import type { BackendConfig } from "../config";
import { parseBody } from "../http/body";
import { adminListQuery } from "./inputs";
import { listPartnerInquiries } from "./partners";
import { listAgents, listUsers } from "./service";

export type AdminRoutesConfig = Pick<BackendConfig, "INTERNAL_API_KEY" | "HMAC_SECRET" | "ADMIN_EMAILS">;

/**
 * `GET /api/admin/users`, `GET /api/admin/agents` and `GET /api/admin/partners` (`?limit=` 1-500, default
 * 100; `?offset=`), newest first. Guarded by the internal key, a signed user context (required) and `ADMIN_EMAILS`.
 */
export function adminRoutes(db: Database, config: AdminRoutesConfig): Router {
  const guard = [
    requireInternalKey(config.INTERNAL_API_KEY),
    verifyUserContext({ secret: userContextSecret(config), required: true }),
    requireAdmin(config.ADMIN_EMAILS),
  ];
  const router = Router();
  router.get("/api/admin/users", ...guard, async (req, res) => {
    const page = parseBody(adminListQuery, { ...req.query });
    res.json(await listUsers({ db, adminEmails: config.ADMIN_EMAILS }, page));
  });
  router.get("/api/admin/agents", ...guard, async (req, res) => {
    const page = parseBody(adminListQuery, { ...req.query });
    res.json(await listAgents({ db }, page));
  });
  router.get("/api/admin/partners", ...guard, async (req, res) => {
    const page = parseBody(adminListQuery, { ...req.query });
    res.json(await listPartnerInquiries({ db }, page));
  });
  return router;
}
