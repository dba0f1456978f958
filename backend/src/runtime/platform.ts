/**
 * What every runtime operation and job needs from the hosting platform: the platform itself (503 when it
 * cannot be resolved), the agent's service (from the persisted `runtimeServiceId`, else by listing and
 * matching names; a found id is persisted), and the agent's environment.
 */
import { HttpError } from "@svc/common";
import type { Database } from "@svc/db";
import type { Agent } from "@svc/db/schema";
import { updateAgentRuntime } from "../agents/service";
import type { GatewayTokenStore } from "../agents/tokens";
import { PLATFORM_DEFAULT_MODEL } from "../ai/budget";
import type { BackendConfig } from "../config";
import { hostingHttpError, hostingNotConfigured } from "../hosting/errors";
import {
  agentEnvironment,
  agentServiceName,
  type HostedService,
  HostingError,
  type HostingPlatform,
  type HostingProviderName,
} from "../hosting/types";
import { actionFailed } from "./errors";

/** The platform, or how to get it (a resolver may throw HostingError `not_configured`). */
export type PlatformSource = HostingPlatform | (() => HostingPlatform) | undefined;

const CREDENTIALS_HINT =
  "set HOSTING_API_KEY, HOSTING_ENVIRONMENT_ID and HOSTING_PROJECT_ID (for a project token also set " +
  "HOSTING_TOKEN_TYPE=project so the key is sent as Project-Access-Token)";

export function resolvePlatform(source: PlatformSource): HostingPlatform {
  if (!source) throw new HostingError("not_configured", "no hosting platform is configured for this backend");
  return typeof source === "function" ? source() : source;
}

/**
 * A failure as the client sees it (spec "Errors", lifecycle operations): platform not resolvable → 503
 * naming the variables to set; no such service → 404; the platform refused or failed → 500. HttpErrors pass
 * through; anything else becomes 500 `action_failed` naming the action.
 */
export function operationError(action: string, err: unknown): unknown {
  if (err instanceof HostingError) {
    if (err.reason === "not_configured" && !err.message.includes("HOSTING_TOKEN_TYPE")) {
      return hostingNotConfigured(`${err.message}: ${CREDENTIALS_HINT}`);
    }
    if (err.reason === "platform") return actionFailed(action, err);
    return hostingHttpError(err);
  }
  if (err instanceof HttpError) return err;
  if (err instanceof Error && err.name === "AgentCallError") {
    return actionFailed(action, err);
  }
  return err;
}

/** The agent's service on the platform, persisting its id when it was found by name. */
export async function resolveService(
  db: Database,
  platform: HostingPlatform,
  agent: Agent,
): Promise<HostedService> {
  const service = await platform.find({
    id: agent.runtimeServiceId,
    name: agentServiceName(agent.id),
    agentId: agent.id,
  });
  if (!service) {
    // Spec "Errors", lifecycle operations: a service that cannot be resolved is 503, like missing credentials.
    throw new HttpError(
      503,
      "service_unresolved",
      `the agent's runtime service (${agentServiceName(agent.id)}) does not exist on the hosting platform; provision the agent first`,
    );
  }
  if (service.id !== agent.runtimeServiceId) {
    await updateAgentRuntime(db, agent.id, { runtimeServiceId: service.id });
    agent.runtimeServiceId = service.id;
  }
  return service;
}

/** What an agent's environment is made of besides the agent: the admin password's key, URL and model. */
export interface AgentEnvironmentSource {
  tokens: Pick<GatewayTokenStore, "adminPassword">;
  config: Pick<BackendConfig, "BACKEND_PUBLIC_URL">;
}

/** Exactly the environment the agent's service gets (see `agentEnvironment`). */
export function environmentFor(
  agent: Pick<Agent, "id" | "aiProvider" | "agentType" | "plan">,
  gatewayToken: string,
  source: AgentEnvironmentSource,
): Record<string, string> {
  return agentEnvironment({
    gatewayToken,
    adminPassword: source.tokens.adminPassword(agent.id, gatewayToken),
    aiProvider: agent.aiProvider,
    // Resolved by the AI proxy at each call, so a changed AI_DEFAULT_MODEL needs no redeploy.
    model: PLATFORM_DEFAULT_MODEL,
    agentType: agent.agentType,
    plan: agent.plan,
    agentId: agent.id,
    backendUrl: source.config.BACKEND_PUBLIC_URL,
  });
}

/**
 * The image an agent is created or updated with: docker, railway and kubernetes run AGENT_IMAGE (OpenClaw
 * with the platform's wrapper and plugin, Dockerfile.agent); the local driver records RUNTIME_IMAGE and runs
 * the runtime it installed.
 */
export function agentImageFor(
  provider: HostingProviderName,
  config: Pick<BackendConfig, "RUNTIME_IMAGE" | "AGENT_IMAGE">,
): string {
  return provider === "local" ? config.RUNTIME_IMAGE : config.AGENT_IMAGE;
}
