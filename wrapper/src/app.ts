import { requestLogger } from "@svc/common";
import express, { type Express } from "express";
import type { Logger } from "pino";
import { adminAuth } from "./auth";
import type { WrapperConfig } from "./config";
import { pairingRoutes } from "./pairing";
import type { RuntimeProxy } from "./proxy";
import { runtimeRoutes } from "./routes/runtime";
import type { FfmpegInfo } from "./runtime/ffmpeg";
import type { Supervisor } from "./runtime/supervisor";
import { aiProviderFrom, configRoutes } from "./runtime-config";

export interface WrapperDeps {
  config: WrapperConfig;
  supervisor: Supervisor;
  proxy: RuntimeProxy;
  ffmpeg: FfmpegInfo;
  logger: Logger;
}

/**
 * The wrapper's own routes (status, logs, events, gateway control, config, pairing, login) in front of the
 * runtime; every other HTTP request goes to the runtime through the proxy (bodies are never parsed here).
 */
export function createWrapperApp({ config, supervisor, proxy, ffmpeg, logger }: WrapperDeps): Express {
  const auth = adminAuth(config.WRAPPER_ADMIN_PASSWORD);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestLogger(logger));
  app.use(auth.loginRoutes);
  app.use(
    runtimeRoutes({
      supervisor,
      requireAdmin: auth.requireAdmin,
      isAdmin: auth.isAdmin,
      ffmpeg,
      aiProvider: () => aiProviderFrom(config.configPath),
    }),
  );
  app.use(
    configRoutes({
      configPath: config.configPath,
      requireAdmin: auth.requireAdmin,
      onWritten: () => logger.info({ path: config.configPath }, "runtime configuration written"),
    }),
  );
  app.use(
    pairingRoutes({
      cliArgv: config.RUNTIME_CLI_COMMAND.split(/\s+/).filter(Boolean),
      requireAdmin: auth.requireAdmin,
      env: { ...process.env, OPENCLAW_STATE_DIR: config.stateDir, OPENCLAW_CONFIG_PATH: config.configPath },
    }),
  );
  app.use((req, res) => proxy.http(req, res));
  return app;
}
