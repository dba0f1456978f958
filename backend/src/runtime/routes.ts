import { normalizeRuntimeVersion } from "@svc/common/runtime-version";
import type { Database } from "@svc/db";
import type { Agent } from "@svc/db/schema";
import { type Request, type Response, Router } from "express";
import { type AgentActor, loadAgentFor } from "../agents/service";
import { gatewayTokenStore } from "../agents/tokens";
import { isAdminContext } from "../auth/admin";
import { requireInternalKey } from "../auth/internal-key";
import { userContextOf, userContextSecret, verifyUserContext } from "../auth/user-context";
import type { BackendConfig } from "../config";
import { parseBody } from "../http/body";
import { invalidLines } from "./errors";
import { maintenanceBody } from "./inputs";
import { createRuntimeOperations, type RuntimeOperations, type RuntimeOperationsDeps } from "./operations";
import type { PlatformSource } from "./platform";

export type AgentRoutesConfig = RuntimeOperationsDeps["config"] &
  Pick<BackendConfig, "INTERNAL_API_KEY" | "HMAC_SECRET" | "ADMIN_EMAILS" | "DATA_ENCRYPTION_KEY">;

export interface AgentRoutesDeps {
  db: Database;
  config: AgentRoutesConfig;
  /** The hosting platform; absent or throwing HostingError `not_configured` → 503 on operations needing it. */
  platform?: PlatformSource;
  /** Called after an operator start, restart, repair (and the other operations that restart the agent). */
  onOperatorAction?: (agentId: string) => void;
  healthWait?: RuntimeOperationsDeps["healthWait"];
}

/** The verified user as an actor: administrators (role `admin` and `ADMIN_EMAILS`) may act on every agent. */
export function actorOf(res: Response, adminEmails: readonly string[]): AgentActor {
  const context = userContextOf(res);
  return { userId: context.userId, isAdmin: isAdminContext(adminEmails, context) };
}

/**
 * Per-agent runtime operations (internal key + signed user context; the agent must belong to `x-user-id`,
 * else 404 `agent not found`; administrators may act on any agent):
 * GET `/api/agents/:agentId/{state,stats,gateway-token,health,logs}`,
 * POST `/api/agents/:agentId/{start,stop,restart,repair,reset-memory,update,compat,heal-token,maintenance}`,
 * and POST `/api/agents/:agentId/deprovision` (the web's account deletion).
 */
export function agentOperationRoutes(deps: AgentRoutesDeps): Router {
  const { db, config } = deps;
  const operations = createRuntimeOperations({
    db,
    config,
    platform: deps.platform,
    tokens: gatewayTokenStore(db, config.DATA_ENCRYPTION_KEY),
    onOperatorAction: deps.onOperatorAction,
    healthWait: deps.healthWait,
  });
  const router = Router();
  // Guards per route, not `router.use`: other areas may serve paths under /api/agents/:agentId.
  const guard = [
    requireInternalKey(config.INTERNAL_API_KEY),
    verifyUserContext({ secret: userContextSecret(config), required: true }),
  ];

  const agentOf = (req: Request<{ agentId: string }>, res: Response): Promise<Agent> =>
    loadAgentFor(db, req.params.agentId, actorOf(res, config.ADMIN_EMAILS));

  type Operation = (
    ops: RuntimeOperations,
    agent: Agent,
    req: Request<{ agentId: string }>,
  ) => Promise<unknown>;
  const route = (method: "get" | "post", name: string, run: Operation) => {
    router[method](
      `/api/agents/:agentId/${name}`,
      ...guard,
      async (req: Request<{ agentId: string }>, res: Response) => {
        res.json(await run(operations, await agentOf(req, res), req));
      },
    );
  };

  route("get", "state", (ops, agent) => ops.instanceState(agent));
  route("get", "stats", (ops, agent) => ops.instanceStats(agent));
  route("get", "gateway-token", (ops, agent) => ops.gatewayToken(agent));
  route("get", "health", (ops, agent) => ops.agentHealth(agent));
  route("get", "logs", (ops, agent, req) => ops.logs(agent, logLines(req.query.lines)));
  route("post", "start", (ops, agent) => ops.start(agent));
  route("post", "stop", (ops, agent) => ops.stop(agent));
  route("post", "restart", (ops, agent) => ops.restart(agent));
  route("post", "repair", (ops, agent) => ops.repair(agent));
  route("post", "reset-memory", (ops, agent) => ops.resetMemory(agent));
  route("post", "update", (ops, agent) => ops.update(agent));
  route("post", "compat", (ops, agent) => ops.compatibilityCheck(agent));
  route("post", "heal-token", (ops, agent) => ops.healGatewayToken(agent));
  route("post", "deprovision", (ops, agent) => ops.deprovision(agent));
  route("post", "maintenance", (ops, agent, req) =>
    ops.maintenance(agent, parseBody(maintenanceBody, req.body ?? {}).action),
  );
  return router;
}

/** `?lines=`: 1 to 500, default 100 (the wrapper's limits); anything else is a 400. */
function logLines(value: unknown): number {
  if (value === undefined) return 100;
  const lines = typeof value === "string" && /^\d{1,3}$/.test(value) ? Number(value) : Number.NaN;
  if (!(lines >= 1 && lines <= 500)) throw invalidLines();
  return lines;
}

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
