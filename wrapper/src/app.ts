import type { IncomingMessage, RequestListener, ServerResponse } from "node:http";
import { requestLogger } from "@svc/common";
import express, { type Express } from "express";
import type { Logger } from "pino";
import type { WrapperConfig } from "./config";
import { wrapperErrorMapper } from "./http/errors";
import type { RuntimeProxy } from "./proxy";
import { adminAuth } from "./routes/auth";
import { configRoutes } from "./routes/config";
import { pairingRoutes } from "./routes/pairing";
import { runtimeRoutes } from "./routes/runtime";
import { aiProviderFrom } from "./runtime/config-file";
import type { FfmpegInfo } from "./runtime/ffmpeg";
import type { Supervisor } from "./runtime/supervisor";

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
      env: {
        ...config.processEnv,
        OPENCLAW_STATE_DIR: config.stateDir,
        OPENCLAW_CONFIG_PATH: config.configPath,
      },
    }),
  );
  app.use((req, res) => proxy.http(req, res));
  app.use(wrapperErrorMapper(logger));
  return app;
}

/** Path prefixes of the wrapper's own routes (lower case, as Express matches them case-insensitively). */
const OWN_PREFIXES = [
  "/api/status",
  "/api/logs",
  "/api/events",
  "/api/gateway",
  "/api/config",
  "/api/pairing",
  "/login",
  "/logout",
];

/**
 * True when Express must see the request: a path under one of the wrapper's own prefixes, or a path with
 * percent-escapes (Express decides what those are). Erring towards Express is always safe: what it does
 * not answer falls through to the proxy at the end of the app.
 */
export function isOwnPath(url: string | undefined): boolean {
  if (!url) return true;
  const query = url.indexOf("?");
  const path = (query === -1 ? url : url.slice(0, query)).toLowerCase();
  if (path.includes("%")) return true;
  for (const prefix of OWN_PREFIXES) if (path.startsWith(prefix)) return true;
  return false;
}

/**
 * The wrapper's request listener. Its own routes go through the Express app; everything else — the
 * runtime's traffic, the hot path — goes straight to the proxy without Express's routing, logged at debug
 * level only (the runtime keeps its own access log; proxy failures still answer 502).
 */
export function createWrapperHandler(deps: WrapperDeps): RequestListener {
  const app = createWrapperApp(deps);
  const { proxy, logger } = deps;
  const logged = requestLogger(logger, "debug");
  const toRuntime = (req: IncomingMessage, res: ServerResponse) =>
    logger.isLevelEnabled("debug") ? logged(req, res, () => proxy.http(req, res)) : proxy.http(req, res);
  return (req, res) => (isOwnPath(req.url) ? app(req, res) : toRuntime(req, res));
}
