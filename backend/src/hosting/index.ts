/**
 * The hosting platform of this backend, chosen by HOSTING_PROVIDER (`local` by default, `railway`,
 * `docker`, `kubernetes`). Every driver is given the platform's secret values so it refuses to hand any of them to an
 * agent (see secret-guard.ts).
 */
import type { Logger } from "pino";
import type { BackendConfig } from "../config";
import { runtimesDirOf } from "../runtime-install/config";
import { createDockerHostingPlatform, type DockerHostingOptions } from "./docker";
import { createKubernetesHostingPlatform, type KubernetesHostingOptions } from "./kubernetes";
import type { kubernetesEnv } from "./kubernetes-config";
import { createLocalHostingPlatform, type LocalHostingOptions } from "./local";
import { type InheritedVariable, inheritedEnvironment } from "./local-process";
import { createRailwayHostingPlatform } from "./railway";
import { platformSecretValues } from "./secret-guard";
import type { HostingPlatform } from "./types";

export type HostingConfig = Pick<
  BackendConfig,
  | "HOSTING_PROVIDER"
  | "HOSTING_API_URL"
  | "HOSTING_API_KEY"
  | "HOSTING_TOKEN_TYPE"
  | "HOSTING_PROJECT_ID"
  | "HOSTING_ENVIRONMENT_ID"
  | "DOCKER_HOST"
  | keyof typeof kubernetesEnv
  | "BACKEND_PORT"
  | "PROVISION_HEALTH_POLL_MS"
  | "PROVISION_HEALTH_TIMEOUT_MS"
  | "LOCAL_RUNTIME_COMMAND"
  | "LOCAL_AGENTS_DIR"
  | "RUNTIME_VERSION"
  | "RUNTIMES_DIR"
  | "DATA_DIR"
  | InheritedVariable
  | "DATABASE_URL"
  | "INTERNAL_API_KEY"
  | "HMAC_SECRET"
  | "DATA_ENCRYPTION_KEY"
  | "AI_PROVIDER_KEY"
  | "WATCHDOG_BOT_TOKEN"
>;

export interface HostingPlatformOptions {
  logger?: Logger;
  /** Local driver settings beyond the configuration (tests: short stop grace, wrapper env knobs). */
  local?: Partial<
    Omit<
      LocalHostingOptions,
      "agentsDir" | "runtimeCommand" | "managedRuntime" | "inheritedEnv" | "secretValues"
    >
  >;
  /** Docker driver settings beyond the configuration (publish host, timeouts). */
  docker?: Partial<Omit<DockerHostingOptions, "dockerHost" | "secretValues">>;
  /** Railway per-call timeout. */
  railwayTimeoutMs?: number;
  /** Kubernetes driver settings beyond the configuration (timeouts, probing). */
  kubernetes?: Partial<
    Pick<KubernetesHostingOptions, "requestTimeoutMs" | "removeTimeoutMs" | "probeAgents">
  >;
}

export function createHostingPlatform(
  config: HostingConfig,
  options: HostingPlatformOptions = {},
): HostingPlatform {
  const secretValues = platformSecretValues(config);
  switch (config.HOSTING_PROVIDER) {
    case "railway":
      return createRailwayHostingPlatform({
        apiUrl: config.HOSTING_API_URL,
        apiKey: config.HOSTING_API_KEY,
        tokenType: config.HOSTING_TOKEN_TYPE,
        projectId: config.HOSTING_PROJECT_ID,
        environmentId: config.HOSTING_ENVIRONMENT_ID,
        secretValues,
        requestTimeoutMs: options.railwayTimeoutMs,
      });
    case "docker":
      return createDockerHostingPlatform({ ...options.docker, dockerHost: config.DOCKER_HOST, secretValues });
    case "kubernetes":
      return createKubernetesHostingPlatform({
        ...options.kubernetes,
        kubeconfigPath: config.KUBECONFIG,
        inCluster: Boolean(config.KUBERNETES_SERVICE_HOST),
        namespace: config.KUBERNETES_NAMESPACE,
        platformNamespace: config.KUBERNETES_PLATFORM_NAMESPACE,
        platformPodLabels: config.KUBERNETES_PLATFORM_POD_LABELS,
        backendPodLabels: config.KUBERNETES_BACKEND_POD_LABELS,
        backendPort: config.BACKEND_PORT,
        internetPlans: config.KUBERNETES_INTERNET_PLANS,
        runtimeClass: config.KUBERNETES_RUNTIME_CLASS,
        storageClass: config.KUBERNETES_STORAGE_CLASS,
        volumeSize: config.KUBERNETES_VOLUME_SIZE,
        cpuRequest: config.KUBERNETES_AGENT_CPU_REQUEST,
        cpuLimit: config.KUBERNETES_AGENT_CPU_LIMIT,
        memoryRequest: config.KUBERNETES_AGENT_MEMORY_REQUEST,
        memoryLimit: config.KUBERNETES_AGENT_MEMORY_LIMIT,
        imagePullSecret: config.KUBERNETES_IMAGE_PULL_SECRET,
        rolloutTimeoutMs: config.KUBERNETES_ROLLOUT_TIMEOUT_MS,
        healthPollMs: config.PROVISION_HEALTH_POLL_MS,
        healthTimeoutMs: config.PROVISION_HEALTH_TIMEOUT_MS,
        secretValues,
      });
    default:
      return createLocalHostingPlatform({
        logger: options.logger,
        ...options.local,
        agentsDir: config.LOCAL_AGENTS_DIR,
        runtimeCommand: config.LOCAL_RUNTIME_COMMAND,
        managedRuntime: { version: config.RUNTIME_VERSION, runtimesDir: runtimesDirOf(config) },
        inheritedEnv: inheritedEnvironment(config),
        secretValues,
      });
  }
}

export { hostingHttpError } from "./errors";
export { LocalHostingPlatform } from "./local";
export * from "./types";
