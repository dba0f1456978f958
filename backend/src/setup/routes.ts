import { Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import type { BackendConfig } from "../config";
import { createProvisioningCheck, type HostingPingSource } from "../health/service";
import { backendSetupOf, type SetupConfig } from "./service";

/**
 * `GET /api/setup` (internal key): the backend's part of the setup checklist (`BackendSetup`), which the
 * web's `GET /api/setup` turns into words for admins and users.
 */
export function setupRoutes(
  config: SetupConfig & Pick<BackendConfig, "INTERNAL_API_KEY">,
  platform: HostingPingSource | undefined,
): Router {
  const provisioning = createProvisioningCheck(platform);
  const router = Router();
  router.get("/api/setup", requireInternalKey(config.INTERNAL_API_KEY), async (_req, res) => {
    res.set("cache-control", "no-store").json(await backendSetupOf(config, provisioning));
  });
  return router;
}
