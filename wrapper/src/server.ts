/**
 * The gateway wrapper: supervises the agent runtime process and serves its management API; everything
 * else (HTTP and WebSocket) is proxied to the runtime on loopback RUNTIME_PORT.
 */
import { join } from "node:path";
import { createLogger, exitOnStartupError, listen } from "@svc/common";
import { createWrapperServer } from "./app";
import { loadWrapperConfig } from "./config";
import { createOpenClaw, type OpenClaw } from "./openclaw";
import { deleteSessions } from "./openclaw/sessions";
import { createPersonaEvaluator } from "./persona/evaluation";
import { personaRoutes } from "./persona/routes";
import { createRuntimeProxy } from "./proxy";
import { detectFfmpeg } from "./runtime/ffmpeg";
import { createSupervisor, type Supervisor } from "./runtime/supervisor";

try {
  const config = loadWrapperConfig();
  const logger = createLogger("wrapper", config.LOG_LEVEL);
  let supervisor: Supervisor | undefined;
  const openclaw: OpenClaw | null =
    config.RUNTIME_KIND === "openclaw" ? createOpenClaw(config, () => supervisor as Supervisor) : null;
  if (!openclaw)
    logger.warn(
      { command: config.runtimeArgv[0] },
      "RUNTIME_KIND=external: the runtime is run as given; its permission guard cannot be verified",
    );
  supervisor = createSupervisor({
    argv: config.runtimeArgv,
    port: config.RUNTIME_PORT,
    token: config.OPENCLAW_GATEWAY_TOKEN ?? null,
    stateDir: config.stateDir,
    configPath: config.configPath,
    env: config.processEnv,
    healthPollMs: config.RUNTIME_HEALTH_POLL_MS,
    stopTimeoutMs: config.RUNTIME_STOP_TIMEOUT_MS,
    prepare: openclaw?.prepare,
    verify: openclaw?.verify,
  });
  supervisor.on("state", (state, previous) => logger.info({ state, previous }, "runtime state"));
  const proxy = createRuntimeProxy({ port: config.RUNTIME_PORT });
  const ffmpeg = await detectFfmpeg();
  // Own routes, the runtime's HTTP on the fast path, WebSocket upgrades (see createWrapperServer).
  const server = createWrapperServer({
    config,
    supervisor,
    proxy,
    ffmpeg,
    logger,
    openclaw,
    agentRouters: (requireAgent) =>
      openclaw
        ? [
            personaRoutes({
              requireAgent,
              evaluator: createPersonaEvaluator({
                runtimeUrl: `http://127.0.0.1:${config.RUNTIME_PORT}`,
                gatewayToken: config.OPENCLAW_GATEWAY_TOKEN,
                backendUrl: config.PLATFORM_BACKEND_URL,
                model: config.AGENT_MODEL,
                persona: config.AGENT_PERSONA,
                storePath: join(config.stateDir, "platform", "persona.json"),
                deleteSessions: (keys) => deleteSessions(openclaw.rpc, keys),
                logger,
              }),
            }),
          ]
        : [],
  });
  await listen(server, config.WRAPPER_PORT, config.HOST);
  logger.info({ port: config.WRAPPER_PORT, runtimePort: config.RUNTIME_PORT }, "wrapper listening");
  await supervisor.start();

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, "stopping");
    server.close();
    server.closeIdleConnections();
    await supervisor.stop().catch((err: unknown) => logger.error({ err }, "runtime stop failed"));
    proxy.close();
    openclaw?.close();
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop("SIGTERM"));
  process.on("SIGINT", () => void stop("SIGINT"));
} catch (err) {
  exitOnStartupError("wrapper", err);
}
