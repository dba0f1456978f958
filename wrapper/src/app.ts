import {
  createServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
  type ServerResponse,
} from "node:http";
import { drainUnreadBodies, requestLogger } from "@svc/common";
import express, { type Express, type RequestHandler } from "express";
import type { Logger } from "pino";
import { agentAuth } from "./auth/agent";
import type { WrapperConfig } from "./config";
import { serveRuntimeFastPath } from "./fast-proxy";
import { runtimeUnavailable, wrapperErrorMapper } from "./http/errors";
import type { OpenClaw } from "./openclaw";
import type { RuntimeProxy } from "./proxy";
import { agentRoutes } from "./routes/agent";
import { adminAuth } from "./routes/auth";
import { configRoutes } from "./routes/config";
import { identityRoutes } from "./routes/identity";
import { pairingRoutes } from "./routes/pairing";
import { runtimeRoutes } from "./routes/runtime";
import { aiProviderFrom, writeRuntimeConfig } from "./runtime/config-file";
import type { FfmpegInfo } from "./runtime/ffmpeg";
import type { Supervisor } from "./runtime/supervisor";

export interface WrapperDeps {
  config: WrapperConfig;
  supervisor: Supervisor;
  proxy: RuntimeProxy;
  ffmpeg: FfmpegInfo;
  logger: Logger;
  /** The OpenClaw side (RPC, configuration, cron, memory); null for an external runtime command. */
  openclaw: OpenClaw | null;
  /** Extra routers of the agent API (persona evaluation), mounted behind the agent's auth. */
  agentRouters?: (requireAgent: RequestHandler) => RequestHandler[];
}

/**
 * The wrapper's own routes (status, logs, events, gateway control, config, pairing, login) in front of the
 * runtime; every other HTTP request goes to the runtime through the proxy (bodies are never parsed here).
 */
export function createWrapperApp(deps: WrapperDeps): Express {
  const { config, supervisor, proxy, ffmpeg, logger, openclaw } = deps;
  const auth = adminAuth(config.WRAPPER_ADMIN_PASSWORD);
  const requireAgent = agentAuth(config.OPENCLAW_GATEWAY_TOKEN, auth.isAdmin);
  const app = express();
  app.disable("x-powered-by");
  app.set("etag", false);
  app.use(requestLogger(logger));
  app.use(auth.loginRoutes);
  app.use(
    identityRoutes({
      adminPassword: config.WRAPPER_ADMIN_PASSWORD,
      listen: { host: config.HOST, port: config.WRAPPER_PORT },
    }),
  );
  app.use(
    runtimeRoutes({
      supervisor,
      requireAdmin: auth.requireAdmin,
      isAdmin: auth.isAdmin,
      ffmpeg,
      aiProvider: () => config.AI_PROVIDER ?? aiProviderFrom(config.configPath),
      permissionHook: openclaw ? "verified" : "unverified",
    }),
  );
  app.use(
    configRoutes({
      configPath: config.configPath,
      requireAdmin: auth.requireAdmin,
      write: openclaw
        ? (incoming) => openclaw.runtime.writeUserConfig(incoming)
        : (incoming) => writeRuntimeConfig(config.configPath, incoming),
      reloads: openclaw !== null,
      onWritten: () => logger.info({ path: config.configPath }, "runtime configuration written"),
    }),
  );
  if (openclaw) app.use(pairingRoutes({ rpc: openclaw.rpc, requireAdmin: auth.requireAdmin }));
  else
    app.use("/api/pairing", auth.requireAdmin, () => {
      throw runtimeUnavailable("device pairing needs the OpenClaw runtime");
    });
  // An external runtime answers these paths itself, if at all: they are proxied to it.
  if (openclaw)
    app.use(
      agentRoutes({
        api: {
          rpc: openclaw.rpc,
          cron: openclaw.cron,
          resetMemory: () => openclaw.resetMemory(),
          ready: () => supervisor.state === "running",
        },
        requireAgent,
      }),
    );
  if (openclaw) for (const router of deps.agentRouters?.(requireAgent) ?? []) app.use(router);
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
  "/api/sessions",
  "/api/cron",
  "/api/memory",
  "/api/eval",
  "/api/identity",
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

/**
 * The wrapper's HTTP server: the listener above (behind the bounded drain of unread bodies, as the platform's
 * servers) and WebSocket upgrades to the runtime; the runtime's plain HTTP requests take the fast path
 * (`./fast-proxy`), which hands every other request to this same server. At debug level every request goes
 * through the listener, so the runtime's traffic is logged too.
 */
export function createWrapperServer(deps: WrapperDeps): Server {
  const { config, proxy, logger } = deps;
  const server = createServer(drainUnreadBodies(createWrapperHandler(deps)));
  server.on("upgrade", (req, socket, head) => proxy.upgrade(req, socket, head));
  serveRuntimeFastPath(server, {
    port: config.RUNTIME_PORT,
    forRuntime: (target) => !isOwnPath(target) && !logger.isLevelEnabled("debug"),
  });
  return server;
}
