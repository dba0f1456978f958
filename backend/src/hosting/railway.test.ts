/** The railway driver against a loopback fake of Railway's GraphQL API. */

import { type FakeRailway, startFakeRailway } from "@svc/common/testing";
import { afterEach, describe, expect, it } from "vitest";
import { createRailwayHostingPlatform, type RailwayHostingOptions, railwayStatus } from "./railway";
import { agentServiceName } from "./types";

const IMAGE = "ghcr.io/openclaw/openclaw:2026.4.11";
const PROJECT = "prj-1";
const ENVIRONMENT = "env-1";
let fake: FakeRailway | undefined;

afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

async function setup(
  tokenType: "account" | "project" = "account",
  overrides: Partial<RailwayHostingOptions> = {},
) {
  fake = await startFakeRailway({
    token: "rw-key",
    tokenType,
    projectId: PROJECT,
    environmentId: ENVIRONMENT,
  });
  const platform = createRailwayHostingPlatform({
    apiUrl: fake.url,
    apiKey: "rw-key",
    tokenType,
    projectId: PROJECT,
    environmentId: ENVIRONMENT,
    ...overrides,
  });
  return { fake, platform };
}

const env = { OPENCLAW_GATEWAY_TOKEN: "gw-1", AGENT_ID: "agt_one" };
const input = { agentId: "agt_one", name: agentServiceName("agt_one"), image: IMAGE, env };

describe("railway driver", () => {
  it("create: serviceCreate, volume at /data, domain, variables (replace, no deploy), then deploy", async () => {
    const { fake, platform } = await setup();
    await platform.ping();
    const service = await platform.create(input);
    expect(service).toMatchObject({
      id: "svc-0001",
      name: "agent-one",
      url: "https://agent-one-production.up.railway.app",
      image: IMAGE,
      status: "deploying",
      metadata: { deploymentId: expect.stringMatching(/^dep-/), volumeId: expect.stringMatching(/^vol-/) },
    });
    expect(fake.operations()).toEqual([
      "ProjectPing",
      "ProjectServices",
      "ServiceCreate",
      "VolumeCreate",
      "ServiceDomainCreate",
      "VariableCollectionUpsert",
      "ServiceInstanceDeploy",
    ]);
    const byName = Object.fromEntries(fake.calls.map((c) => [c.operationName, c.variables]));
    expect(byName.ServiceCreate).toEqual({
      input: { projectId: PROJECT, name: "agent-one", source: { image: IMAGE } },
    });
    expect(byName.VolumeCreate).toEqual({
      input: { projectId: PROJECT, environmentId: ENVIRONMENT, serviceId: "svc-0001", mountPath: "/data" },
    });
    expect(byName.ServiceDomainCreate).toEqual({
      input: { serviceId: "svc-0001", environmentId: ENVIRONMENT, targetPort: 8080 },
    });
    expect(byName.VariableCollectionUpsert).toEqual({
      input: {
        projectId: PROJECT,
        environmentId: ENVIRONMENT,
        serviceId: "svc-0001",
        variables: env,
        replace: true,
        skipDeploys: true,
      },
    });
    expect(byName.ServiceInstanceDeploy).toEqual({ serviceId: "svc-0001", environmentId: ENVIRONMENT });
    expect(fake.services.get("svc-0001")).toMatchObject({ variables: env, volumeMountPath: "/data" });
  });

  it("sends the key as Bearer for account tokens and in Project-Access-Token for project tokens", async () => {
    const account = await setup("account");
    await account.platform.ping();
    expect(account.fake.calls[0].headers.authorization).toBe("Bearer rw-key");
    expect(account.fake.calls[0].headers["project-access-token"]).toBeUndefined();
    await account.fake.close();

    const project = await setup("project");
    await project.platform.ping();
    expect(project.fake.calls[0].headers["project-access-token"]).toBe("rw-key");
    expect(project.fake.calls[0].headers.authorization).toBeUndefined();

    // The wrong header for the token kind is refused, with the HOSTING_TOKEN_TYPE hint.
    const mismatched = createRailwayHostingPlatform({
      apiUrl: project.fake.url,
      apiKey: "rw-key",
      tokenType: "account",
      projectId: PROJECT,
      environmentId: ENVIRONMENT,
    });
    await expect(mismatched.ping()).rejects.toMatchObject({
      reason: "platform",
      message: expect.stringContaining("HOSTING_TOKEN_TYPE=project"),
    });
  });

  it("finds by persisted id, else by listing the project's services and matching the name", async () => {
    const { fake, platform } = await setup();
    const created = await platform.create(input);
    fake.calls.length = 0;
    expect(await platform.find({ id: created.id, name: "whatever" })).toMatchObject({
      id: created.id,
      name: "agent-one",
      url: "https://agent-one-production.up.railway.app",
      image: IMAGE,
    });
    expect(fake.operations()).toEqual(["ServiceInstance"]);
    expect(fake.calls[0].variables).toEqual({ serviceId: created.id, environmentId: ENVIRONMENT });

    fake.calls.length = 0;
    expect(await platform.find({ name: "agent-one" })).toMatchObject({ id: created.id });
    expect(fake.operations()).toEqual(["ProjectServices"]);
    expect(fake.calls[0].variables).toEqual({ id: PROJECT });

    // A stale persisted id falls back to the name.
    expect(await platform.find({ id: "svc-gone", name: "agent-one" })).toMatchObject({ id: created.id });
    expect(await platform.find({ id: "svc-gone", name: "agent-nobody" })).toBeNull();
    expect((await platform.list()).map((s) => s.name)).toEqual(["agent-one"]);
  });

  it("maps the latest deployment's status", async () => {
    const { fake, platform } = await setup();
    const { id } = await platform.create(input);
    const status = async () => (await platform.find({ id, name: "" }))?.status;
    expect(await status()).toBe("deploying");
    for (const [railway, ours] of [
      ["SUCCESS", "running"],
      ["CRASHED", "crashed"],
      ["FAILED", "failed"],
      ["QUEUED", "deploying"],
      ["INITIALIZING", "deploying"],
      ["REMOVED", "stopped"],
    ]) {
      fake.setDeploymentStatus(id, railway);
      expect(await status()).toBe(ours);
    }
    expect(railwayStatus(null)).toBe("stopped");
    expect(railwayStatus({ id: "d", status: "SUCCESS", deploymentStopped: true })).toBe("stopped");
    expect(railwayStatus({ id: "d", status: "SOMETHING_NEW" })).toBe("unknown");
  });

  it("restart and stop act on the latest deployment; update sets the image and deploys", async () => {
    const { fake, platform } = await setup();
    const { id } = await platform.create(input);
    const deploymentId = fake.services.get(id)?.deployments[0].id;
    fake.setDeploymentStatus(id, "SUCCESS");
    fake.calls.length = 0;

    await platform.restart(id);
    expect(fake.operations()).toEqual(["LatestDeployment", "DeploymentRestart"]);
    expect(fake.calls[0].variables).toEqual({ input: { serviceId: id, environmentId: ENVIRONMENT } });
    expect(fake.calls[1].variables).toEqual({ id: deploymentId });

    fake.calls.length = 0;
    await platform.stop(id);
    expect(fake.operations()).toEqual(["LatestDeployment", "DeploymentStop"]);
    expect(fake.calls[1].variables).toEqual({ id: deploymentId });
    expect((await platform.find({ id, name: "" }))?.status).toBe("stopped");
    // Stopping again does nothing; restarting a stopped service deploys it.
    fake.calls.length = 0;
    await platform.stop(id);
    expect(fake.operations()).toEqual(["LatestDeployment"]);
    fake.calls.length = 0;
    await platform.restart(id);
    expect(fake.operations()).toEqual(["LatestDeployment", "ServiceInstanceDeploy"]);

    fake.calls.length = 0;
    await platform.setImage(id, "ghcr.io/openclaw/openclaw:2026.5.1");
    const deployed = await platform.deploy(id);
    expect(fake.operations()).toEqual(["ServiceInstanceUpdate", "ServiceInstanceDeploy", "ServiceInstance"]);
    expect(fake.calls[0].variables).toEqual({
      serviceId: id,
      environmentId: ENVIRONMENT,
      input: { source: { image: "ghcr.io/openclaw/openclaw:2026.5.1" } },
    });
    expect(deployed).toMatchObject({ image: "ghcr.io/openclaw/openclaw:2026.5.1", status: "deploying" });
  });

  it("setEnv replaces the whole environment; create of an existing name reconfigures it", async () => {
    const { fake, platform } = await setup();
    const { id } = await platform.create(input);
    await platform.setEnv(id, { OPENCLAW_GATEWAY_TOKEN: "gw-2" });
    expect(fake.services.get(id)?.variables).toEqual({ OPENCLAW_GATEWAY_TOKEN: "gw-2" });

    fake.calls.length = 0;
    const again = await platform.create({ ...input, env: { OPENCLAW_GATEWAY_TOKEN: "gw-3" } });
    expect(again.id).toBe(id);
    expect(fake.services.size).toBe(1);
    expect(fake.operations()).not.toContain("ServiceCreate");
    expect(fake.services.get(id)?.variables).toEqual({ OPENCLAW_GATEWAY_TOKEN: "gw-3" });
  });

  it("stats are null (never made up); logs come from deploymentLogs; remove deletes the service", async () => {
    const { fake, platform } = await setup();
    const { id } = await platform.create(input);
    expect(await platform.stats(id)).toEqual({ cpuPercent: null, memoryBytes: null, memoryLimitBytes: null });
    await expect(platform.stats("svc-gone")).rejects.toMatchObject({ reason: "not_found" });

    fake.services
      .get(id)
      ?.deployments[0].logs.push(
        { timestamp: "2026-01-01T00:00:00Z", message: "wrapper listening", severity: "info" },
        { timestamp: "2026-01-01T00:00:01Z", message: "runtime failed", severity: "error" },
      );
    expect(await platform.logs(id, 10)).toEqual([
      { ts: "2026-01-01T00:00:00Z", stream: "stdout", line: "wrapper listening" },
      { ts: "2026-01-01T00:00:01Z", stream: "stderr", line: "runtime failed" },
    ]);
    expect(fake.calls.at(-1)?.variables).toMatchObject({ limit: 10 });

    await platform.remove(id);
    expect(fake.services.size).toBe(0);
    expect(fake.calls.at(-1)).toMatchObject({ operationName: "ServiceDelete", variables: { id } });
    await expect(platform.remove(id)).rejects.toMatchObject({ reason: "not_found" });
  });

  it("not_configured names each missing variable and the HOSTING_TOKEN_TYPE hint, without calling Railway", async () => {
    const { fake } = await setup();
    const unconfigured = createRailwayHostingPlatform({ apiUrl: fake.url, tokenType: "account" });
    for (const call of [
      () => unconfigured.ping(),
      () => unconfigured.list(),
      () => unconfigured.find({ id: "svc-1", name: "agent-one" }),
      () => unconfigured.create(input),
      () => unconfigured.restart("svc-1"),
      () => unconfigured.stop("svc-1"),
      () => unconfigured.setImage("svc-1", IMAGE),
    ]) {
      await expect(call()).rejects.toMatchObject({
        reason: "not_configured",
        message: expect.stringMatching(
          /HOSTING_API_KEY, HOSTING_PROJECT_ID, HOSTING_ENVIRONMENT_ID.*HOSTING_TOKEN_TYPE=project/,
        ),
      });
    }
    const partly = createRailwayHostingPlatform({
      apiUrl: fake.url,
      apiKey: "rw-key",
      tokenType: "project",
      projectId: PROJECT,
    });
    await expect(partly.ping()).rejects.toMatchObject({
      reason: "not_configured",
      message: expect.stringContaining("set HOSTING_ENVIRONMENT_ID ("),
    });
    expect(fake.calls).toHaveLength(0);
  });

  it("an unreachable API is a platform error", async () => {
    const { fake } = await setup();
    const url = fake.url;
    await fake.close();
    const platform = createRailwayHostingPlatform({
      apiUrl: url,
      apiKey: "k",
      tokenType: "account",
      projectId: PROJECT,
      environmentId: ENVIRONMENT,
    });
    await expect(platform.ping()).rejects.toMatchObject({
      reason: "platform",
      message: expect.stringContaining("unreachable"),
    });
  });
});
