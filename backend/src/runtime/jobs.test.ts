/**
 * The runtime job processors: through the real queue and worker (provision end to end), and called with
 * claimed-job rows for the attempt rules; the hosting platform is a double whose agents are loopback servers.
 */
import { createLogger, ManualClock, openGatewayToken, wrapperAdminPassword } from "@svc/common";
import type { PlatformJob } from "@svc/db/schema";
import { afterEach, describe, expect, it, vi } from "vitest";
import { gatewayTokenStore } from "../agents/tokens";
import { PLATFORM_DEFAULT_MODEL } from "../ai/budget";
import { agentEnvironment, agentServiceName } from "../hosting/types";
import { platformProcessors, runtimeJobConfig } from "../job-processors";
import { databaseClock, enqueueJob, getJob } from "../platform-jobs/sql";
import type { ProcessorContext } from "../platform-jobs/types";
import { createJobWorker, type JobWorker } from "../platform-jobs/worker";
import { createUser, DATA_ENCRYPTION_KEY, testDatabase } from "../testing";
import { agentStatusFrom, provisionProcessor, retryRepairProcessor, runtimeSyncProcessor } from "./jobs";
import { createRuntimeOperations } from "./operations";
import { FakePlatform } from "./testing/fake-platform";
import { readAgent, seedAgent } from "./testing/fixtures";

const database = testDatabase();
const logger = createLogger("runtime-jobs-test", "silent");
const config = runtimeJobConfig({
  RUNTIME_IMAGE: "ghcr.io/openclaw/openclaw:latest",
  // The fake platform is a railway-like driver: agents run the agent image.
  AGENT_IMAGE: "registry.test/agent-platform-agent:latest",
  AI_DEFAULT_MODEL: "openai/gpt-4o-mini",
  BACKEND_PUBLIC_URL: "http://backend.test:4000",
});
const platforms: FakePlatform[] = [];
let worker: JobWorker | undefined;

afterEach(async () => {
  await worker?.stop();
  worker = undefined;
  for (const platform of platforms.splice(0)) await platform.close();
});

function fakePlatform(): FakePlatform {
  const platform = new FakePlatform();
  platforms.push(platform);
  return platform;
}

/** Processor deps on a manual clock: the health wait never sleeps for real. */
function deps(platform: FakePlatform | undefined) {
  const clock = new ManualClock();
  const healthWait = { now: () => clock.now().getTime(), sleep: async (ms: number) => clock.advance(ms) };
  const tokens = gatewayTokenStore(database.db, DATA_ENCRYPTION_KEY);
  const operations = createRuntimeOperations({ db: database.db, platform, config, tokens, healthWait });
  return { db: database.db, platform, config, tokens, operations, healthWait };
}

const ctx: ProcessorContext = { signal: new AbortController().signal, logger, progress: async () => {} };

/** A claimed job row as the worker hands it to a processor. */
async function claimedJob(
  jobType: PlatformJob["jobType"],
  payload: Record<string, unknown>,
  attempts = 1,
): Promise<PlatformJob> {
  const job = await enqueueJob(database.pool, databaseClock, {
    jobType,
    userId: payload.userId as string,
    agentId: payload.agentId as string,
    payload,
  });
  return { ...job, status: "running", attempts };
}

describe("provision_managed_runtime", () => {
  it("through the worker: creates, configures, deploys, waits for health and stores the result", async () => {
    const platform = fakePlatform();
    const owner = await createUser({ plan: "pro" });
    const { agent } = await seedAgent(platform, owner, {
      token: null,
      service: false,
      url: null,
    });
    worker = createJobWorker({
      connectionString: process.env.DATABASE_URL as string,
      processors: platformProcessors({
        db: database.db,
        dataEncryptionKey: DATA_ENCRYPTION_KEY,
        platform,
        config,
      }),
      logger,
      concurrency: 1,
      pollIntervalMs: 50,
      staleAfterMs: 600_000,
      shutdownGraceMs: 2_000,
    });
    await worker.start();
    const job = await enqueueJob(database.pool, databaseClock, {
      jobType: "provision_managed_runtime",
      userId: owner.id,
      agentId: agent.id,
      payload: {
        userId: owner.id,
        agentId: agent.id,
        plan: "pro",
        aiProvider: "anthropic",
        agentType: "coder",
      },
    });
    const done = await vi.waitFor(
      async () => {
        const row = await getJob(database.pool, job.id);
        if (row?.status !== "completed") throw new Error(`job is ${row?.status}: ${row?.error}`);
        return row;
      },
      { timeout: 15_000, interval: 25 },
    );
    const service = [...platform.services.values()][0];
    expect(done.result).toEqual({
      agentId: agent.id,
      url: service.agent.url,
      serviceId: service.service.id,
      image: "registry.test/agent-platform-agent:latest",
      version: "2026.4.11",
    });
    // The last step it reported (this platform installs no runtime of its own).
    expect(done.progress).toBe("waiting for the agent to answer…");
    const stored = await readAgent(agent.id);
    expect(stored).toMatchObject({
      url: service.agent.url,
      runtimeServiceId: service.service.id,
      image: "registry.test/agent-platform-agent:latest",
      version: "2026.4.11",
      status: "running",
      plan: "pro",
      aiProvider: "anthropic",
      agentType: "coder",
      hostingProvider: "railway",
    });
    const token = openGatewayToken(DATA_ENCRYPTION_KEY, stored.gatewayTokenEncrypted as string);
    expect(token).toMatch(/^[0-9a-f]{64}$/);
    const created = platform.callsOf("create");
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      name: agentServiceName(agent.id),
      image: "registry.test/agent-platform-agent:latest",
    });
    // Exactly the agent environment, nothing else.
    expect(created[0].env).toEqual(
      agentEnvironment({
        gatewayToken: token,
        adminPassword: wrapperAdminPassword(DATA_ENCRYPTION_KEY, agent.id, token),
        aiProvider: "anthropic",
        model: PLATFORM_DEFAULT_MODEL,
        agentType: "coder",
        plan: "pro",
        agentId: agent.id,
        backendUrl: "http://backend.test:4000",
      }),
    );
    expect(platform.calls.map((c) => c.op)).toEqual(["find", "create", "deploy"]);
  });

  it("reuses the agent's existing service and token (a retry never creates a second service)", async () => {
    const platform = fakePlatform();
    const owner = await createUser();
    const { agent, token, service } = await seedAgent(platform, owner, {
      persistServiceId: false,
    });
    const result = await provisionProcessor(deps(platform))(
      await claimedJob("provision_managed_runtime", { userId: owner.id, agentId: agent.id }),
      ctx,
    );
    expect(result).toMatchObject({
      agentId: agent.id,
      serviceId: service?.service.id,
      url: service?.agent.url,
    });
    expect(platform.calls.map((c) => c.op)).toEqual(["find", "setEnv", "deploy"]);
    expect(service?.agent.env.OPENCLAW_GATEWAY_TOKEN).toBe(token);
    expect((await readAgent(agent.id)).runtimeServiceId).toBe(service?.service.id);
  });

  it("an agent that never becomes healthy fails the attempt; it is `provisioning`, then `failed` on the last", async () => {
    const platform = fakePlatform();
    platform.unhealthyAgents = true;
    const owner = await createUser();
    const { agent } = await seedAgent(platform, owner, { service: false, url: null });
    const processor = provisionProcessor(deps(platform));
    const payload = { userId: owner.id, agentId: agent.id };
    await expect(processor(await claimedJob("provision_managed_runtime", payload, 1), ctx)).rejects.toThrow(
      "the agent runtime did not become healthy within 60 s (last status: unreachable)",
    );
    expect((await readAgent(agent.id)).status).toBe("provisioning");
    expect(platform.callsOf("create")).toHaveLength(1);
    await expect(processor(await claimedJob("provision_managed_runtime", payload, 5), ctx)).rejects.toThrow();
    expect((await readAgent(agent.id)).status).toBe("failed");
    expect(platform.callsOf("create")).toHaveLength(1);
  });

  it("another user's agent is not provisioned", async () => {
    const platform = fakePlatform();
    const owner = await createUser();
    const other = await createUser();
    const { agent } = await seedAgent(platform, owner, { service: false, url: null });
    await expect(
      provisionProcessor(deps(platform))(
        await claimedJob("provision_managed_runtime", { userId: other.id, agentId: agent.id }),
        ctx,
      ),
    ).rejects.toThrow(`agent ${agent.id} not found for user ${other.id}`);
    expect(platform.calls).toEqual([]);
  });

  it("fails clearly without a hosting platform", async () => {
    const owner = await createUser();
    const job = await claimedJob("provision_managed_runtime", { userId: owner.id, agentId: "agt_x" });
    await expect(provisionProcessor(deps(undefined))(job, ctx)).rejects.toThrow(
      "no hosting platform is configured for this backend",
    );
  });
});

describe("runtime_sync and retry_repair", () => {
  it("runtime_sync stores what the platform and the probe report", async () => {
    const platform = fakePlatform();
    const owner = await createUser();
    const { agent, service } = await seedAgent(platform, owner, {
      persistServiceId: false,
      url: null,
    });
    const sync = runtimeSyncProcessor(deps(platform));
    const job = await claimedJob("runtime_sync", { agentId: agent.id });
    expect(await sync(job, ctx)).toMatchObject({
      agentId: agent.id,
      found: true,
      serviceId: service?.service.id,
      url: service?.agent.url,
      status: "running",
      probe: "running",
    });
    expect(await readAgent(agent.id)).toMatchObject({
      url: service?.agent.url,
      runtimeServiceId: service?.service.id,
      status: "running",
    });
    if (service) service.agent.running = false;
    expect(await sync(job, ctx)).toMatchObject({ status: "stopped", probe: "stopped" });
    expect((await readAgent(agent.id)).status).toBe("stopped");
  });

  it("agentStatusFrom maps probe and platform states", () => {
    expect(agentStatusFrom("healthy", "running")).toBe("running");
    expect(agentStatusFrom("unreachable", "crashed")).toBe("crashed");
    expect(agentStatusFrom("starting", "deploying")).toBe("provisioning");
    expect(agentStatusFrom(null, "failed")).toBe("failed");
    expect(agentStatusFrom("unhealthy", "running")).toBe("degraded");
  });

  it("retry_repair rewrites the environment, restarts and waits for health", async () => {
    const platform = fakePlatform();
    const owner = await createUser();
    const { agent, token, service } = await seedAgent(platform, owner);
    if (service) service.agent.env = {};
    const result = await retryRepairProcessor(deps(platform))(
      await claimedJob("retry_repair", { userId: owner.id, agentId: agent.id }),
      ctx,
    );
    expect(result).toEqual({
      agentId: agent.id,
      serviceId: service?.service.id,
      tokenGenerated: false,
      healthy: true,
      status: "running",
    });
    expect(service?.agent.env.OPENCLAW_GATEWAY_TOKEN).toBe(token);
    expect(platform.calls.map((c) => c.op)).toEqual(["find", "setEnv", "deploy"]);
  });

  it("retry_repair fails the attempt while the agent stays unhealthy", async () => {
    const platform = fakePlatform();
    const owner = await createUser();
    const { agent } = await seedAgent(platform, owner);
    platform.unhealthyAgents = true;
    await expect(
      retryRepairProcessor(deps(platform))(await claimedJob("retry_repair", { agentId: agent.id }), ctx),
    ).rejects.toThrow("the agent is still unhealthy after repair (last status: unreachable)");
    expect((await readAgent(agent.id)).status).toBe("degraded");
  });
});
