import type { BackendSetup } from "@svc/common/setup";
import { urlWithoutSecrets } from "@svc/common/setup";
import type { BackendConfig } from "../config";
import type { ProvisioningStatus } from "../health/service";
import { runtimesDirOf } from "../runtime-install/config";
import { findRuntime, runtimeDirFor } from "../runtime-install/index";

export type SetupConfig = Pick<
  BackendConfig,
  | "AI_PROVIDER"
  | "AI_PROVIDER_URL"
  | "AI_PROVIDER_KEY"
  | "AI_DEFAULT_MODEL"
  | "HOSTING_PROVIDER"
  | "HOSTING_API_KEY"
  | "HOSTING_PROJECT_ID"
  | "HOSTING_ENVIRONMENT_ID"
  | "LOCAL_RUNTIME_COMMAND"
  | "AGENT_IMAGE"
  | "RUNTIME_VERSION"
  | "RUNTIMES_DIR"
  | "DATA_DIR"
>;

/** The variables each hosting driver cannot do without (the local driver needs none). */
function missingHostingVariables(config: SetupConfig): string[] {
  if (config.HOSTING_PROVIDER !== "railway") return [];
  const required: [string, string | undefined][] = [
    ["HOSTING_API_KEY", config.HOSTING_API_KEY],
    ["HOSTING_PROJECT_ID", config.HOSTING_PROJECT_ID],
    ["HOSTING_ENVIRONMENT_ID", config.HOSTING_ENVIRONMENT_ID],
  ];
  return required.filter(([, value]) => !value).map(([name]) => name);
}

async function runtimeOf(config: SetupConfig): Promise<BackendSetup["runtime"]> {
  if (config.HOSTING_PROVIDER !== "local") return { kind: "image", image: config.AGENT_IMAGE };
  if (config.LOCAL_RUNTIME_COMMAND !== undefined) return { kind: "command" };
  const runtimesDir = runtimesDirOf(config);
  const installed = await findRuntime(runtimesDir, config.RUNTIME_VERSION);
  return {
    kind: "managed",
    version: config.RUNTIME_VERSION,
    installed: installed !== null,
    dir: installed?.dir ?? runtimeDirFor(runtimesDir, config.RUNTIME_VERSION),
  };
}

/**
 * The backend's part of the setup checklist: whether the AI provider is configured, whether the hosting
 * driver answers (`provisioning`, the ping `/health` reports too) and which of its variables are unset, and
 * what agents run. Never a secret's value.
 */
export async function backendSetupOf(
  config: SetupConfig,
  provisioning: () => Promise<ProvisioningStatus>,
): Promise<BackendSetup> {
  const [status, runtime] = await Promise.all([provisioning(), runtimeOf(config)]);
  return {
    aiProvider: {
      configured: Boolean(config.AI_PROVIDER_KEY),
      provider: config.AI_PROVIDER,
      url: urlWithoutSecrets(config.AI_PROVIDER_URL),
      defaultModel: config.AI_DEFAULT_MODEL,
    },
    hosting: {
      driver: config.HOSTING_PROVIDER,
      ready: status.enabled,
      reason: status.enabled ? null : (status.reason ?? "the hosting platform did not answer"),
      missing: missingHostingVariables(config),
    },
    runtime,
  };
}
