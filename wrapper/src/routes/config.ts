import { type RequestHandler, Router } from "express";
import { jsonBody } from "../http/body";
import { badRequest, failed, notFound } from "../http/errors";
import { InvalidConfigError } from "../openclaw/runtime";
import { type ConfigObject, isPlainObject, readRuntimeConfig, redact } from "../runtime/config-file";

export interface ConfigRoutesOptions {
  configPath: string;
  requireAdmin: RequestHandler;
  /**
   * Writes a new full configuration and makes the runtime use it; throws InvalidConfigError (answered 400,
   * nothing written) when the runtime refuses it. OpenClaw: validated, the platform's keys kept, reloaded.
   */
  write: (incoming: ConfigObject) => Promise<ConfigObject>;
  /** Says what the answer's message says about reloading. */
  reloads: boolean;
  /** Called after a successful write (for logs). */
  onWritten?: (config: ConfigObject) => void;
}

/** `GET /api/config` (redacted) and `POST /api/config` (new full configuration). */
export function configRoutes({
  configPath,
  requireAdmin,
  write,
  reloads,
  onWritten,
}: ConfigRoutesOptions): Router {
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
        written = await write(body);
      } catch (error) {
        if (error instanceof InvalidConfigError) throw badRequest(error.message);
        throw failed(`cannot write configuration: ${(error as Error).message}`);
      }
      onWritten?.(written);
      res.json({
        ok: true,
        message: reloads
          ? "Configuration saved; the gateway reloaded it"
          : "Configuration saved; the runtime reads it when it reloads or restarts",
      });
    },
  );

  return router;
}
