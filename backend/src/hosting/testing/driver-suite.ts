/**
 * The shared hosting driver suite: what every driver must do through the HostingPlatform interface,
 * whatever the platform under it (a loopback fake of its API, or a real one). Each driver's own test file
 * calls `describeHostingDriver` with how to start it; platform-specific behaviour stays in that file.
 */
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitForHealthy } from "../../runtime/health";
import { agentServiceName, type HostingPlatform } from "../types";
import { testAgentEnvironment } from "./agent-env";

export interface DriverUnderTest {
  platform: HostingPlatform;
  /** The image to create agents with, and another to update them to. */
  image: string;
  newImage: string;
  /**
   * Whether each deployed service is an agent the shared probe can reach (loopback fakes that run agents,
   * a backend inside the cluster); otherwise only the platform's own view is checked.
   */
  agentsAnswer: boolean;
  close(): Promise<void>;
}

export interface DriverSuiteOptions {
  /** Prefix of the suite's agent ids (a real cluster's namespace may hold other runs' agents). */
  agentPrefix?: string;
  /** Test timeout (a real cluster pulls images and starts pods). */
  timeoutMs?: number;
}

export function describeHostingDriver(
  name: string,
  start: () => Promise<DriverUnderTest>,
  options: DriverSuiteOptions = {},
): void {
  const prefix = options.agentPrefix ?? "agt_suite";
  const timeout = options.timeoutMs ?? 30_000;

  describe(`the shared hosting driver suite: ${name}`, () => {
    let driver: DriverUnderTest;
    let sequence = 0;
    const created: string[] = [];

    beforeEach(async () => {
      driver = await start();
    });
    afterEach(async () => {
      // Whatever a failed test left behind on a real platform is removed.
      for (const id of created.splice(0)) await driver.platform.remove(id).catch(() => undefined);
      await driver.close();
    });

    async function newAgent(env: Record<string, string> = {}) {
      sequence += 1;
      const agentId = `${prefix}_${Date.now().toString(36)}_${sequence}`;
      const service = await driver.platform.create({
        agentId,
        userId: "usr_suite",
        name: agentServiceName(agentId),
        image: driver.image,
        env: { ...testAgentEnvironment(agentId, `token-${sequence}`, `password-${sequence}`), ...env },
      });
      created.push(service.id);
      return { agentId, service };
    }

    it(
      "pings, creates an agent's service and finds it by id, by name and by agent id",
      async () => {
        await driver.platform.ping();
        const { agentId, service } = await newAgent();
        expect(service).toMatchObject({ name: agentServiceName(agentId), image: driver.image });
        expect(["running", "deploying"]).toContain(service.status);
        for (const ref of [
          { id: service.id, name: "unrelated" },
          { name: agentServiceName(agentId) },
          { name: agentServiceName(agentId), agentId },
        ])
          expect((await driver.platform.find(ref))?.id).toBe(service.id);
        expect(await driver.platform.find({ name: agentServiceName(`${agentId}_other`) })).toBeNull();
        expect((await driver.platform.list()).map((s) => s.id)).toContain(service.id);
      },
      timeout,
    );

    it(
      "deploys the agent to running, where the shared probe finds it up",
      async () => {
        const { service } = await newAgent();
        const deployed = await driver.platform.deploy(service.id);
        expect(deployed.status).toBe("running");
        if (driver.agentsAnswer) {
          expect(deployed.url).toMatch(/^http:\/\//);
          expect(
            (await waitForHealthy(deployed.url as string, { pollMs: 50, timeoutMs: 10_000 })).healthy,
          ).toBe(true);
        }
      },
      timeout,
    );

    it(
      "stops (stopped, no longer answering), starts again with deploy, and restarts",
      async () => {
        const { service } = await newAgent();
        await driver.platform.deploy(service.id);
        await driver.platform.stop(service.id);
        const stopped = await driver.platform.find({ id: service.id, name: service.name });
        expect(stopped?.status).toBe("stopped");
        if (driver.agentsAnswer && stopped?.url)
          expect((await waitForHealthy(stopped.url, { pollMs: 50, timeoutMs: 200 })).healthy).toBe(false);
        expect((await driver.platform.deploy(service.id)).status).toBe("running");
        await driver.platform.restart(service.id);
        const restarted = await driver.platform.deploy(service.id);
        expect(restarted.status).toBe("running");
      },
      timeout,
    );

    it(
      "keeps a new environment and a new image through a deploy",
      async () => {
        const { agentId, service } = await newAgent();
        await driver.platform.setEnv(service.id, testAgentEnvironment(agentId, "token-new", "password-new"));
        await driver.platform.setImage(service.id, driver.newImage);
        const deployed = await driver.platform.deploy(service.id);
        expect(deployed).toMatchObject({ id: service.id, image: driver.newImage, status: "running" });
        expect((await driver.platform.find({ id: service.id, name: service.name }))?.image).toBe(
          driver.newImage,
        );
      },
      timeout,
    );

    it(
      "reports stats as numbers or null (never made up) and logs as lines",
      async () => {
        const { service } = await newAgent();
        await driver.platform.deploy(service.id);
        const stats = await driver.platform.stats(service.id);
        for (const value of [stats.cpuPercent, stats.memoryBytes, stats.memoryLimitBytes])
          expect(value === null || (typeof value === "number" && value >= 0)).toBe(true);
        const lines = await driver.platform.logs(service.id, 10);
        expect(Array.isArray(lines)).toBe(true);
        for (const line of lines) expect(["stdout", "stderr"]).toContain(line.stream);
      },
      timeout,
    );

    it(
      "removes the agent's service: not found afterwards, and every operation on it is not_found",
      async () => {
        const { agentId, service } = await newAgent();
        await driver.platform.remove(service.id);
        created.splice(created.indexOf(service.id), 1);
        expect(
          await driver.platform.find({ id: service.id, name: agentServiceName(agentId), agentId }),
        ).toBeNull();
        expect((await driver.platform.list()).map((s) => s.id)).not.toContain(service.id);
        for (const operation of [
          () => driver.platform.restart(service.id),
          () => driver.platform.stats(service.id),
          () => driver.platform.remove(service.id),
        ])
          await expect(operation()).rejects.toMatchObject({ reason: "not_found" });
      },
      timeout,
    );

    it("refuses to give an agent a platform secret by name", async () => {
      await expect(newAgent({ INTERNAL_API_KEY: "x" })).rejects.toMatchObject({
        reason: "platform",
        message: expect.stringContaining("INTERNAL_API_KEY"),
      });
    });
  });
}
