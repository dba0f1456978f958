/**
 * The shared hosting driver suite (testing/driver-suite.ts) for the drivers whose platform has a loopback
 * fake here: kubernetes on the fake API server (its agents answer the shared probe), docker on the fake
 * Docker Engine (containers, no agents behind them).
 */
import { startFakeDocker } from "@svc/common/testing";
import { createDockerHostingPlatform } from "./docker";
import { describeHostingDriver } from "./testing/driver-suite";
import { startKubernetesDriverOnFake } from "./testing/kubernetes-driver";

describeHostingDriver("kubernetes (loopback API server)", async () => {
  const driver = await startKubernetesDriverOnFake();
  return {
    platform: driver.platform,
    image: "agent-platform-agent:2026.4.11",
    newImage: "agent-platform-agent:2026.5.1",
    agentsAnswer: true,
    close: () => driver.close(),
  };
});

describeHostingDriver("docker (loopback Docker Engine)", async () => {
  const fake = await startFakeDocker();
  const platform = createDockerHostingPlatform({ dockerHost: fake.dockerHost });
  return {
    platform,
    image: "agent-platform-agent:2026.4.11",
    newImage: "agent-platform-agent:2026.5.1",
    agentsAnswer: false,
    async close() {
      await platform.close();
      await fake.close();
    },
  };
});
