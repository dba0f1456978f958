/** The kubernetes driver as the tests run it: on the loopback fake API server, through a kubeconfig file. */
import { rm } from "node:fs/promises";
import { dirname } from "node:path";
import {
  createKubernetesHostingPlatform,
  type KubernetesHostingOptions,
  type KubernetesHostingPlatform,
} from "../kubernetes";
import type { KubernetesAgentSettings } from "../kubernetes-objects";
import { type FakeKubernetes, type FakeKubernetesOptions, startFakeKubernetes } from "./fake-kubernetes";

export const TEST_NAMESPACE = "agents";

/** The configuration's defaults (kubernetes-config.ts), as the driver receives them. */
export const TEST_SETTINGS: KubernetesAgentSettings = {
  namespace: TEST_NAMESPACE,
  platformNamespace: "agent-platform",
  platformPodLabels: { "app.kubernetes.io/part-of": "agent-platform" },
  backendPodLabels: {
    "app.kubernetes.io/part-of": "agent-platform",
    "app.kubernetes.io/component": "backend",
  },
  backendPort: 4000,
  internetPlans: [],
  volumeSize: "2Gi",
  cpuRequest: "250m",
  cpuLimit: "1",
  memoryRequest: "768Mi",
  memoryLimit: "1536Mi",
};

export interface KubernetesDriverOnFake {
  fake: FakeKubernetes;
  platform: KubernetesHostingPlatform;
  kubeconfigPath: string;
  close(): Promise<void>;
}

export async function startKubernetesDriverOnFake(
  options: Partial<KubernetesHostingOptions> = {},
  fakeOptions: FakeKubernetesOptions = {},
): Promise<KubernetesDriverOnFake> {
  const fake = await startFakeKubernetes(fakeOptions);
  const kubeconfigPath = await fake.writeKubeconfig();
  const platform = createKubernetesHostingPlatform({
    ...TEST_SETTINGS,
    kubeconfigPath,
    healthPollMs: 50,
    healthTimeoutMs: 10_000,
    rolloutTimeoutMs: 10_000,
    ...options,
  });
  return {
    fake,
    platform,
    kubeconfigPath,
    async close() {
      await platform.close();
      await fake.close();
      await rm(dirname(kubeconfigPath), { recursive: true, force: true });
    },
  };
}
