import type { Database } from "@svc/db";
import { gatewayTokenStore } from "./agents/tokens";
import { gatewayChatProcessor } from "./chat/processor";
import { envSchema } from "./config";
import type { ProcessorRegistry } from "./platform-jobs/types";
import { provisionProcessor, retryRepairProcessor, runtimeSyncProcessor } from "./runtime/jobs";
import { createRuntimeOperations, type RuntimeOperationsConfig } from "./runtime/operations";
import type { PlatformSource } from "./runtime/platform";

export interface PlatformProcessorDeps {
  db: Database;
  dataEncryptionKey: string | undefined;
  /**
   * The hosting platform (or a resolver that may throw HostingError `not_configured`). Without it the runtime
   * jobs (provision, sync, repair) fail every attempt with "no hosting platform is configured".
   */
  platform?: PlatformSource;
  /** The images, model, BACKEND_PUBLIC_URL and the health wait; the configuration defaults when absent. */
  config?: RuntimeOperationsConfig;
  /** CHAT_JOB_TIMEOUT_MS: how long a chat job waits for the agent's answer (default its configuration's). */
  chatTimeoutMs?: number;
}

/**
 * The processor of every job type: what server.ts (and a test) hands the job worker, as graphile-worker is
 * handed its task list, so the queue knows none of the areas that use it.
 */
export function platformProcessors(deps: PlatformProcessorDeps): ProcessorRegistry {
  const config = deps.config ?? runtimeJobConfig();
  const tokens = gatewayTokenStore(deps.db, deps.dataEncryptionKey);
  const operations = createRuntimeOperations({ db: deps.db, platform: deps.platform, config, tokens });
  const runtime = { db: deps.db, platform: deps.platform, config, tokens, operations };
  return {
    gateway_chat_completion: gatewayChatProcessor({
      ...deps,
      timeoutMs: deps.chatTimeoutMs ?? envSchema.shape.CHAT_JOB_TIMEOUT_MS.parse(undefined),
    }),
    provision_managed_runtime: provisionProcessor(runtime),
    runtime_sync: runtimeSyncProcessor(runtime),
    retry_repair: retryRepairProcessor(runtime),
  };
}

/** The runtime jobs' configuration from `env` (variable name → value), the defaults for the rest. */
export function runtimeJobConfig(env: Record<string, string> = {}): RuntimeOperationsConfig {
  return envSchema
    .pick({
      ENABLE_RUNTIME_CONTROLS: true,
      RUNTIME_IMAGE: true,
      AGENT_IMAGE: true,
      AI_DEFAULT_MODEL: true,
      BACKEND_PUBLIC_URL: true,
      PROVISION_HEALTH_POLL_MS: true,
      PROVISION_HEALTH_TIMEOUT_MS: true,
    })
    .parse(env);
}
