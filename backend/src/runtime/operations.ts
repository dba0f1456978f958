/**
 * Runtime maintenance operations on one agent. Each takes an agent the caller is allowed to act on (the
 * routes load it scoped to the user) and returns the response body. Mutating operations answer 503 while
 * `ENABLE_RUNTIME_CONTROLS` is false, or when the hosting platform cannot be resolved; a failing action is
 * 500. Observations that only read the database and the agent (state, health, gateway token) keep working
 * with controls off: dashboards and health checks must not go blind when operators freeze the controls.
 */
import {
  MANAGED_BASELINE_VERSION,
  normalizeRuntimeVersion,
  pinImageVersion,
} from "@svc/common/runtime-version";
import type { Database } from "@svc/db";
import { type Agent, agents } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { type AgentJson, type AgentRuntimeFields, agentJson, updateAgentRuntime } from "../agents/service";
import { type GatewayTokenStore, generateGatewayToken } from "../agents/tokens";
import type { BackendConfig } from "../config";
import {
  agentServiceName,
  type HostedService,
  HostingError,
  type HostingPlatform,
  type ServiceLogLine,
} from "../hosting/types";
import { readAgentConfig, resetAgentMemory, writeAgentConfig } from "./agent-client";
import { applyConfigFixes, GATEWAY_TOKEN_FIX } from "./compat";
import {
  actionFailed,
  agentNotDeployed,
  gatewayTokenMissing,
  noGatewayToken,
  runtimeControlsDisabled,
} from "./errors";
import { type WaitForHealthyOptions, waitForHealthy } from "./health";
import {
  agentImageFor,
  environmentFor,
  operationError,
  type PlatformSource,
  resolvePlatform,
  resolveService,
} from "./platform";
import { type ProbeResult, probeRuntime } from "./probe";

export type RuntimeOperationsConfig = Pick<
  BackendConfig,
  | "ENABLE_RUNTIME_CONTROLS"
  | "RUNTIME_IMAGE"
  | "AGENT_IMAGE"
  | "AI_DEFAULT_MODEL"
  | "BACKEND_PUBLIC_URL"
  | "PROVISION_HEALTH_POLL_MS"
  | "PROVISION_HEALTH_TIMEOUT_MS"
>;

export interface RuntimeOperationsDeps {
  db: Database;
  platform: PlatformSource;
  config: RuntimeOperationsConfig;
  tokens: GatewayTokenStore;
  /** Called after an operator (re)started an agent, e.g. so the watchdog forgets old crashes. */
  onOperatorAction?: (agentId: string) => void;
  /** Time for `waitForHealthy` (tests move a manual clock). */
  healthWait?: Pick<WaitForHealthyOptions, "now" | "sleep">;
}

export type MaintenanceAction = "restart" | "factory-reset";

export interface LifecycleResult {
  ok: true;
  action: string;
  agent: AgentJson;
}

export interface RuntimeStats {
  cpuPercent: number | null;
  memoryBytes: number | null;
  memoryLimitBytes: number | null;
  telemetry: { restartCounts: false; lastExit: false; perMessage: false };
}

export type AgentHealth =
  | { status: "no_agent" }
  | (ProbeResult & { agentId: string; agentName: string; url: string });

export interface RuntimeOperations {
  instanceState(agent: Agent): Promise<{ agent: AgentJson; probe: ProbeResult | null }>;
  instanceStats(agent: Agent): Promise<RuntimeStats>;
  /** The last `lines` lines of the agent's wrapper and runtime output, from the platform. */
  logs(agent: Agent, lines: number): Promise<{ lines: ServiceLogLine[] }>;
  start(agent: Agent): Promise<LifecycleResult>;
  stop(agent: Agent): Promise<LifecycleResult>;
  restart(agent: Agent): Promise<LifecycleResult>;
  repair(agent: Agent): Promise<LifecycleResult & { tokenGenerated: boolean }>;
  resetMemory(agent: Agent): Promise<LifecycleResult & { deleted: number | null }>;
  update(agent: Agent): Promise<LifecycleResult>;
  gatewayToken(agent: Agent): Promise<{ token: string }>;
  agentHealth(agent: Agent): Promise<AgentHealth>;
  compatibilityCheck(agent: Agent): Promise<{ applied: string[] }>;
  healGatewayToken(agent: Agent): Promise<{ ok: boolean; health: ProbeResult | null }>;
  maintenance(agent: Agent, action: MaintenanceAction): Promise<LifecycleResult>;
  /**
   * Removes the agent for good: its service on the hosting platform, then its row (and with it the rows
   * that hang off it). For a deleted account (issue 26 item 7), so not behind the runtime controls.
   */
  deprovision(
    agent: Agent,
  ): Promise<{ ok: true; action: "deprovision"; agentId: string; serviceRemoved: boolean }>;
  /** Repair for the `retry_repair` job: no controls gate, throws plain errors. */
  repairForJob(agent: Agent): Promise<{ serviceId: string; url: string | null; tokenGenerated: boolean }>;
}

export function createRuntimeOperations(deps: RuntimeOperationsDeps): RuntimeOperations {
  const { db, config, tokens } = deps;

  function requireControls(): void {
    if (!config.ENABLE_RUNTIME_CONTROLS) {
      throw runtimeControlsDisabled();
    }
  }

  /** Runs an action, its failure mapped to the client-visible error (`operationError`). */
  async function act<T>(action: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (err) {
      throw operationError(action, err);
    }
  }

  async function platformAndService(
    agent: Agent,
  ): Promise<{ platform: HostingPlatform; service: HostedService }> {
    const platform = resolvePlatform(deps.platform);
    return { platform, service: await resolveService(db, platform, agent) };
  }

  /**
   * The agent's service and its platform, or null when the platform has none. An agent that was never
   * deployed (no service id, no URL) has nothing on any platform, so a platform that is not configured is
   * no obstacle to removing it.
   */
  async function serviceIfAny(
    agent: Agent,
  ): Promise<{ platform: HostingPlatform; service: HostedService } | null> {
    try {
      const platform = resolvePlatform(deps.platform);
      const service = await platform.find({
        id: agent.runtimeServiceId,
        name: agentServiceName(agent.id),
        agentId: agent.id,
      });
      return service ? { platform, service } : null;
    } catch (err) {
      const neverDeployed = agent.runtimeServiceId === null && agent.url === null;
      if (neverDeployed && err instanceof HostingError && err.reason === "not_configured") return null;
      throw err;
    }
  }

  function operatorActed(agentId: string): void {
    try {
      deps.onOperatorAction?.(agentId);
    } catch {
      // The hook is advisory (the watchdog resets its counters); the operation itself succeeded.
    }
  }

  async function finish(agent: Agent, action: string, fields: AgentRuntimeFields): Promise<LifecycleResult> {
    const updated = await updateAgentRuntime(db, agent.id, fields);
    return { ok: true, action, agent: agentJson(updated) };
  }

  function requireUrl(agent: Agent): string {
    if (!agent.url) throw agentNotDeployed();
    return agent.url;
  }

  function requireToken(agent: Agent): string {
    const token = tokens.open(agent);
    if (!token) {
      throw gatewayTokenMissing();
    }
    return token;
  }

  /**
   * Rewrites the whole environment with `token`, then restarts the service with it. The restart is a
   * `deploy`: drivers apply a new environment when they (re)deploy, and a plain restart would keep the old
   * one (the local driver restarts only the runtime inside the running wrapper).
   */
  async function setEnvironmentAndRestart(
    agent: Agent,
    platform: HostingPlatform,
    service: HostedService,
    token: string,
  ): Promise<string | null> {
    await platform.setEnv(service.id, environmentFor(agent, token, { tokens, config }));
    const deployed = await platform.deploy(service.id);
    return deployed.url ?? service.url ?? agent.url;
  }

  /** Repair's core: the agent's token (a new one when it has none) in a fresh environment, restarted. */
  async function rewriteEnvironmentAndRestart(agent: Agent) {
    // The platform first: a 503 must not leave a new token behind that no agent holds.
    const { platform, service } = await platformAndService(agent);
    const { token, generated } = await tokens.ensure(agent);
    const url = await setEnvironmentAndRestart(agent, platform, service, token);
    return { service, url, token, tokenGenerated: generated };
  }

  /** The shared probe of the agent's URL, where a service the platform stopped reads `stopped`. */
  async function probeOf(agent: Agent, url: string): Promise<ProbeResult> {
    const probe = await probeRuntime(url);
    // A service the platform stopped answers nothing: that is its state, not a fault.
    if (probe.status === "unreachable" && agent.status === "stopped")
      return { ...probe, status: "stopped", statusReason: "the agent's service is stopped" };
    return probe;
  }

  async function waitHealthy(url: string) {
    return waitForHealthy(url, {
      pollMs: config.PROVISION_HEALTH_POLL_MS,
      timeoutMs: config.PROVISION_HEALTH_TIMEOUT_MS,
      ...deps.healthWait,
    });
  }

  return {
    async instanceState(agent) {
      return { agent: agentJson(agent), probe: agent.url ? await probeOf(agent, agent.url) : null };
    },

    instanceStats: (agent) =>
      act("stats", async () => {
        const { platform, service } = await platformAndService(agent);
        const stats = await platform.stats(service.id);
        return {
          cpuPercent: stats.cpuPercent ?? null,
          memoryBytes: stats.memoryBytes ?? null,
          memoryLimitBytes: stats.memoryLimitBytes ?? null,
          telemetry: { restartCounts: false, lastExit: false, perMessage: false },
        };
      }),

    logs: (agent, lines) =>
      act("logs", async () => {
        const { platform, service } = await platformAndService(agent);
        return { lines: await platform.logs(service.id, lines) };
      }),

    start: (agent) =>
      act("start", async () => {
        requireControls();
        const { platform, service } = await platformAndService(agent);
        const deployed = await platform.deploy(service.id);
        operatorActed(agent.id);
        return finish(agent, "start", { url: deployed.url ?? service.url ?? agent.url, status: "running" });
      }),

    stop: (agent) =>
      act("stop", async () => {
        requireControls();
        const { platform, service } = await platformAndService(agent);
        await platform.stop(service.id);
        return finish(agent, "stop", { status: "stopped" });
      }),

    restart: (agent) =>
      act("restart", async () => {
        requireControls();
        const { platform, service } = await platformAndService(agent);
        await platform.restart(service.id);
        operatorActed(agent.id);
        return finish(agent, "restart", { status: "running" });
      }),

    repair: (agent) =>
      act("repair", async () => {
        requireControls();
        const { url, tokenGenerated } = await rewriteEnvironmentAndRestart(agent);
        operatorActed(agent.id);
        return { ...(await finish(agent, "repair", { url, status: "running" })), tokenGenerated };
      }),

    resetMemory: (agent) =>
      act("reset-memory", async () => {
        requireControls();
        const url = requireUrl(agent);
        const token = requireToken(agent);
        // Resolve the service before deleting anything, so a platform problem leaves the memories intact.
        const { platform, service } = await platformAndService(agent);
        const { deleted } = await resetAgentMemory(url, {
          token,
          adminPassword: tokens.adminPassword(agent.id, token),
        });
        await platform.restart(service.id);
        operatorActed(agent.id);
        return { ...(await finish(agent, "reset-memory", { status: "running" })), deleted };
      }),

    update: (agent) =>
      act("update", async () => {
        requireControls();
        const { platform, service } = await platformAndService(agent);
        const image = agentImageFor(platform.provider, config);
        await platform.setImage(service.id, image);
        const deployed = await platform.deploy(service.id);
        operatorActed(agent.id);
        return finish(agent, "update", {
          image,
          version: normalizeRuntimeVersion(image).version,
          url: deployed.url ?? service.url ?? agent.url,
          status: "running",
        });
      }),

    async gatewayToken(agent) {
      const token = tokens.open(agent);
      if (!token) throw noGatewayToken();
      return { token };
    },

    async agentHealth(agent) {
      if (!agent.url) return { status: "no_agent" };
      return {
        agentId: agent.id,
        agentName: agent.name,
        url: agent.url,
        ...(await probeOf(agent, agent.url)),
      };
    },

    compatibilityCheck: (agent) =>
      act("compatibility check", async () => {
        requireControls();
        let url = requireUrl(agent);
        let token = tokens.open(agent);
        const applied: string[] = [];
        if (!token) {
          // No token (never made, or revoked): the runtime's admin API cannot be reached without one, so the
          // token comes first — a new one in a fresh environment, restarted — and the configuration after it.
          const rewritten = await rewriteEnvironmentAndRestart(agent);
          url = rewritten.url ?? url;
          await updateAgentRuntime(db, agent.id, { url });
          operatorActed(agent.id);
          applied.push(GATEWAY_TOKEN_FIX);
          token = rewritten.token;
          const wait = await waitHealthy(url);
          if (!wait.healthy) {
            throw actionFailed(
              "compatibility check",
              new Error(
                "the agent has a new gateway token but did not come back healthy to have its configuration checked; run the check again",
              ),
            );
          }
        }
        // The wrapper's admin API takes its own password, derived from the token (never the token itself).
        const adminPassword = tokens.adminPassword(agent.id, token);
        const current = (await readAgentConfig(url, adminPassword)) ?? {};
        const { applied: fixes, config: fixed } = applyConfigFixes(current);
        if (fixes.length > 0) await writeAgentConfig(url, adminPassword, fixed);
        return { applied: [...fixes, ...applied] };
      }),

    healGatewayToken: (agent) =>
      act("heal gateway token", async () => {
        requireControls();
        const { platform, service } = await platformAndService(agent);
        const token = generateGatewayToken();
        await tokens.write(agent.id, token);
        const url = await setEnvironmentAndRestart(agent, platform, service, token);
        operatorActed(agent.id);
        if (!url) return { ok: false, health: null };
        const wait = await waitHealthy(url);
        await updateAgentRuntime(db, agent.id, { url, status: wait.healthy ? "running" : "degraded" });
        return { ok: wait.healthy, health: wait.probe };
      }),

    maintenance: (agent, action) =>
      act(`maintenance ${action}`, async () => {
        requireControls();
        const { platform, service } = await platformAndService(agent);
        if (action === "restart") {
          await platform.restart(service.id);
          operatorActed(agent.id);
          return finish(agent, "restart", { status: "running" });
        }
        // Factory reset: the known-good release of the configured repository, a fresh environment, and a
        // redeploy (a plain restart would keep the previous image).
        const image = pinImageVersion(agentImageFor(platform.provider, config), MANAGED_BASELINE_VERSION);
        const { token } = await tokens.ensure(agent);
        await platform.setImage(service.id, image);
        await platform.setEnv(service.id, environmentFor(agent, token, { tokens, config }));
        const deployed = await platform.deploy(service.id);
        operatorActed(agent.id);
        return finish(agent, "factory-reset", {
          image,
          version: MANAGED_BASELINE_VERSION,
          url: deployed.url ?? service.url ?? agent.url,
          status: "running",
        });
      }),

    deprovision: (agent) =>
      act("deprovision", async () => {
        const found = await serviceIfAny(agent);
        if (found) await found.platform.remove(found.service.id);
        await db.delete(agents).where(eq(agents.id, agent.id));
        return { ok: true, action: "deprovision", agentId: agent.id, serviceRemoved: found !== null };
      }),

    async repairForJob(agent) {
      const { service, url, tokenGenerated } = await rewriteEnvironmentAndRestart(agent);
      await updateAgentRuntime(db, agent.id, { url, status: "running" });
      return { serviceId: service.id, url, tokenGenerated };
    },
  };
}
