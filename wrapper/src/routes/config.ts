import { type RequestHandler, Router } from "express";
import { jsonBody } from "../http/body";
import { badRequest, failed, notFound } from "../http/errors";
import {
  type ConfigObject,
  isPlainObject,
  readRuntimeConfig,
  redact,
  writeRuntimeConfig,
} from "../runtime/config-file";

export interface ConfigRoutesOptions {
  configPath: string;
  requireAdmin: RequestHandler;
  /** Called after a successful write (the runtime hot-reloads the file itself; this is for logs/events). */
  onWritten?: (config: ConfigObject) => void;
}

/** `GET /api/config` (redacted) and `POST /api/config` (new full configuration). */
export function configRoutes({ configPath, requireAdmin, onWritten }: ConfigRoutesOptions): Router {
  const router = Router();

  router.get("/api/config", requireAdmin, async (_req, res) => {
    let config: ConfigObject | null;
    try {
      config = await readRuntimeConfig(configPath);
    } catch (error) {
      throw failed((error as Error).message);
    }
    if (!config) throw notFound("no configuration file");
    res.json({ ok: true, config: redact(config) });
  });

  router.post(
    "/api/config",
    requireAdmin,
    jsonBody({ limit: "1mb", strict: false, tooLargeMessage: "configuration too large" }),
    async (req, res) => {
      const body: unknown = req.body;
      if (!isPlainObject(body)) throw badRequest("the configuration must be a JSON object");
      let written: ConfigObject;
      try {
        written = await writeRuntimeConfig(configPath, body);
      } catch (error) {
        throw failed(`cannot write configuration: ${(error as Error).message}`);
      }
      onWritten?.(written);
      res.json({ ok: true, message: "Configuration saved; the gateway reloads it automatically" });
    },
  );

  return router;
}
