import { normalizeRuntimeVersion } from "@svc/common/runtime-version";
import { Router } from "express";
import { requireInternalKey } from "../auth/internal-key";
import type { BackendConfig } from "../config";

/**
 * `GET /api/runtime/version` (internal key): `{version, image, defaultImage}` — the release the platform
 * deploys (a floating tag becomes the managed baseline), that release's image, and the configured image.
 */
export function runtimeVersionRoutes(
  config: Pick<BackendConfig, "INTERNAL_API_KEY" | "RUNTIME_IMAGE">,
): Router {
  const router = Router();
  router.get("/api/runtime/version", requireInternalKey(config.INTERNAL_API_KEY), (_req, res) => {
    const { version, image } = normalizeRuntimeVersion(config.RUNTIME_IMAGE);
    res.json({ version, image, defaultImage: config.RUNTIME_IMAGE });
  });
  return router;
}
