/**
 * The runtime job processors: `provision_managed_runtime` (lane deploy),
 * `runtime_sync` and `retry_repair` (lane recovery). A throw is a failed attempt; the queue retries with
 * its backoff until `maxAttempts`.
 */

import { normalizeRuntimeVersion } from "@svc/common/runtime-version";
import type { Database } from "@svc/db";
import type { Agent, PlatformJob } from "@svc/db/schema";
import { findAgent, updateAgentRuntime } from "../agents/service";
import type { GatewayTokenStore } from "../agents/tokens";
import { agentServiceName, type HostedService } from "../hosting/types";
import type { JobProcessor } from "../platform-jobs/types";
import { type WaitForHealthyOptions, waitForHealthy } from "./health";
import type { RuntimeOperations, RuntimeOperationsConfig } from "./operations";
import { agentImageFor, environmentFor, type PlatformSource, resolvePlatform } from "./platform";
import { isUp, type ProbeStatus, probeRuntime } from "./probe";

export interface RuntimeJobDeps {
  db: Database;
  platform: PlatformSource;
  config: RuntimeOperationsConfig;
  tokens: GatewayTokenStore;
  operations: RuntimeOperations;
  healthWait?: Pick<WaitForHealthyOptions, "now" | "sleep">;
}

interface AgentJobPayload {
  userId?: string;
  agentId?: string;
  plan?: string;
  aiProvider?: string;
  agentType?: string;
}

/** The job's agent (scoped to the payload's user when it names one); a missing agent fails the attempt. */
async function jobAgent(db: Database, job: PlatformJob): Promise<Agent> {
  const payload = job.payload as AgentJobPayload;
  const agentId = payload.agentId ?? job.agentId;
  if (!agentId) throw new Error("the job names no agentId");
  const userId = payload.userId ?? job.userId ?? undefined;
  const agent = await findAgent(db, agentId, userId);
  if (!agent) throw new Error(`agent ${agentId} not found${userId ? ` for user ${userId}` : ""}`);
  return agent;
}

/** Polls the agent's runtime at `url` until it is healthy or PROVISION_HEALTH_TIMEOUT_MS passes. */
function waitForAgentHealth(deps: RuntimeJobDeps, url: string, signal: AbortSignal) {
  return waitForHealthy(url, {
    pollMs: deps.config.PROVISION_HEALTH_POLL_MS,
    timeoutMs: deps.config.PROVISION_HEALTH_TIMEOUT_MS,
    signal,
    ...deps.healthWait,
  });
}

function isLastAttempt(job: PlatformJob): boolean {
  return job.attempts >= job.maxAttempts;
}

/** Result of `provision_managed_runtime`. */
export interface ProvisionResult extends Record<string, unknown> {
  agentId: string;
  url: string;
  serviceId: string;
  image: string;
  version: string;
}

/**
 * `provision_managed_runtime`: install the agent runtime when the driver runs one of this machine (local;
 * minutes the first time, cached after); find the agent's service (persisted id, else by name) or create it
 * from the agent image; give it exactly the agent environment with the per-user gateway token (generated and
 * stored encrypted when the agent has none, so repair can re-send it); deploy; wait until healthy; store
 * url, service id, image, version and status `running`. The agent is `provisioning` meanwhile, and `failed`
 * when the last attempt fails. Each step is the job's `progress`, which the dashboard shows.
 */
export function provisionProcessor(deps: RuntimeJobDeps): JobProcessor {
  return async (job, { signal, progress }) => {
    // A worker without a platform fails every attempt with this clear error.
    const platform = resolvePlatform(deps.platform);
    const payload = job.payload as AgentJobPayload;
    const agent = await jobAgent(deps.db, job);
    const settings = {
      plan: payload.plan ?? agent.plan,
      aiProvider: payload.aiProvider ?? agent.aiProvider,
      agentType: payload.agentType ?? agent.agentType,
    };
    try {
      await updateAgentRuntime(deps.db, agent.id, {
        status: "provisioning",
        hostingProvider: platform.provider,
        ...settings,
      });
      if (platform.installRuntime) await platform.installRuntime((step) => void progress(step), signal);
      await progress("starting the agent…");
      const { token } = await deps.tokens.ensure(agent);
      const env = environmentFor({ ...agent, ...settings }, token, deps);
      const agentImage = agentImageFor(platform.provider, deps.config);

      let service: HostedService | null = await platform.find({
        id: agent.runtimeServiceId,
        name: agentServiceName(agent.id),
        agentId: agent.id,
      });
      if (service) {
        await platform.setEnv(service.id, env);
      } else {
        service = await platform.create({
          agentId: agent.id,
          userId: agent.userId,
          name: agentServiceName(agent.id),
          image: agentImage,
          env,
        });
      }
      // Persisted at once: a retry finds this service instead of creating a second one.
      await updateAgentRuntime(deps.db, agent.id, { runtimeServiceId: service.id });

      const deployed = await platform.deploy(service.id);
      const url = deployed.url ?? service.url;
      if (!url) throw new Error("the hosting platform gave the agent's service no URL");
      await progress("waiting for the agent to answer…");
      const wait = await waitForAgentHealth(deps, url, signal);
      if (!wait.healthy) {
        throw new Error(
          `the agent runtime did not become healthy within ${deps.config.PROVISION_HEALTH_TIMEOUT_MS / 1000} s (last status: ${wait.probe.status})`,
        );
      }
      const image = deployed.image ?? service.image ?? agentImage;
      const { version } = normalizeRuntimeVersion(image);
      await updateAgentRuntime(deps.db, agent.id, {
        url,
        runtimeServiceId: service.id,
        image,
        version,
        status: "running",
      });
      return { agentId: agent.id, url, serviceId: service.id, image, version } satisfies ProvisionResult;
    } catch (err) {
      if (isLastAttempt(job)) {
        await updateAgentRuntime(deps.db, agent.id, { status: "failed" }).catch(() => undefined);
      }
      throw err;
    }
  };
}

/** The stored status an agent gets from what the probe and the platform report. */
export function agentStatusFrom(probe: ProbeStatus | null, service: HostedService["status"]): string {
  if (probe && isUp(probe)) return "running";
  if (probe === "stopped" || service === "stopped") return "stopped";
  if (probe === "starting" || service === "deploying") return "provisioning";
  if (service === "crashed") return "crashed";
  if (service === "failed") return "failed";
  return "degraded";
}

/**
 * `runtime_sync`: refreshes the agent's stored url, service id, image, version and status from the platform
 * (find) and the shared probe.
 */
export function runtimeSyncProcessor(deps: RuntimeJobDeps): JobProcessor {
  return async (job) => {
    const platform = resolvePlatform(deps.platform);
    const agent = await jobAgent(deps.db, job);
    const service = await platform.find({
      id: agent.runtimeServiceId,
      name: agentServiceName(agent.id),
      agentId: agent.id,
    });
    if (!service) {
      await updateAgentRuntime(deps.db, agent.id, { status: "failed" });
      return { agentId: agent.id, found: false, status: "failed" };
    }
    const url = service.url ?? agent.url;
    const probe = url ? await probeRuntime(url) : null;
    const image = service.image ?? agent.image;
    const status = agentStatusFrom(probe?.status ?? null, service.status);
    await updateAgentRuntime(deps.db, agent.id, {
      runtimeServiceId: service.id,
      url,
      image,
      version: image ? normalizeRuntimeVersion(image).version : agent.version,
      status,
    });
    return {
      agentId: agent.id,
      found: true,
      serviceId: service.id,
      url,
      image,
      status,
      serviceStatus: service.status,
      probe: probe?.status ?? null,
    };
  };
}

/**
 * `retry_repair`: the repair operation (whole environment rewritten with the per-user token, restart),
 * then waits for health; an agent that stays unhealthy fails the attempt so the queue retries.
 */
export function retryRepairProcessor(deps: RuntimeJobDeps): JobProcessor {
  return async (job, { signal }) => {
    resolvePlatform(deps.platform);
    const agent = await jobAgent(deps.db, job);
    const { serviceId, url, tokenGenerated } = await deps.operations.repairForJob(agent);
    if (!url) return { agentId: agent.id, serviceId, tokenGenerated, healthy: null };
    const wait = await waitForAgentHealth(deps, url, signal);
    if (!wait.healthy) {
      await updateAgentRuntime(deps.db, agent.id, { status: "degraded" });
      throw new Error(`the agent is still unhealthy after repair (last status: ${wait.probe.status})`);
    }
    return { agentId: agent.id, serviceId, tokenGenerated, healthy: true, status: wait.probe.status };
  };
}
