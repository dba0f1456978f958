/**
 * The wrapper's OpenClaw side, wired: device identity and RPC, the configuration with the platform's keys,
 * reload, the proof that the permission plugin is loaded, cron and heartbeat, memory reset.
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { WrapperConfig } from "../config";
import { isPlainObject } from "../runtime/config-file";
import { runtimeEnv, type Supervisor } from "../runtime/supervisor";
import { CronJobs, Heartbeat } from "./cron";
import { loadOrCreateDeviceIdentity } from "./device-identity";
import type { PlatformSettings } from "./managed-config";
import { createReload } from "./reload";
import { createGatewayRpc, type GatewayRpc } from "./rpc";
import { OpenClawRuntime } from "./runtime";
import { type MemoryResetResult, resetMemory } from "./sessions";

export interface OpenClaw {
  runtime: OpenClawRuntime;
  rpc: GatewayRpc;
  cron: CronJobs;
  /** Before each start: the platform's configuration in place and valid. */
  prepare(): Promise<void>;
  /** After `/healthz`: the permission plugin answers inside the gateway, else throws why. */
  verify(): Promise<void>;
  resetMemory(): Promise<MemoryResetResult>;
  close(): void;
}

const PLUGIN_POLL_MS = 250;

export function createOpenClaw(config: WrapperConfig, supervisor: () => Supervisor): OpenClaw {
  const token = config.OPENCLAW_GATEWAY_TOKEN ?? "";
  const platformDir = join(config.stateDir, "platform");
  const rpc = createGatewayRpc({
    port: config.RUNTIME_PORT,
    token,
    identity: loadOrCreateDeviceIdentity(join(platformDir, "device.json")),
    version: "wrapper",
  });
  const backend = (config.PLATFORM_BACKEND_URL ?? "").replace(/\/+$/, "");
  const settings: PlatformSettings = {
    backendUrl: backend,
    classifyUrl: config.classifyUrl ?? `${backend}/api/hooks/classify`,
    model: config.AGENT_MODEL,
    pluginDir: config.pluginDir,
    workspace: join(config.stateDir, "workspace"),
    logFile: join(config.stateDir, "logs", "openclaw.log"),
    runtimePort: config.RUNTIME_PORT,
    permissionWaitSeconds: config.PERMISSION_WAIT_SECONDS,
  };
  const cliEnv = runtimeEnv({
    env: config.processEnv,
    port: config.RUNTIME_PORT,
    token,
    stateDir: config.stateDir,
    configPath: config.configPath,
  });

  async function verify(): Promise<void> {
    const deadline = Date.now() + config.RUNTIME_VERIFY_TIMEOUT_MS;
    let reason = "the permission plugin did not answer";
    while (Date.now() < deadline) {
      const status = await runtime.pluginStatus();
      if (status.loaded) return;
      reason = status.reason ?? reason;
      await sleep(PLUGIN_POLL_MS);
    }
    throw new Error(reason);
  }

  const runtime = new OpenClawRuntime({
    configPath: config.configPath,
    stateDir: config.stateDir,
    cliArgv: config.cliArgv,
    cliEnv,
    settings,
    rpc,
    reload: () => createReload({ supervisor: supervisor(), verify, onRestarted: () => rpc.close() })(),
  });
  const cron = new CronJobs(
    rpc,
    new Heartbeat({ rpc, runtime, statePath: join(platformDir, "heartbeat.json") }),
  );

  return {
    runtime,
    rpc,
    cron,
    async prepare() {
      await mkdir(join(config.stateDir, "tmp"), { recursive: true, mode: 0o700 });
      await runtime.prepareConfig();
    },
    verify,
    async resetMemory() {
      const stored = await runtime.readConfig();
      const defaults =
        isPlainObject(stored.agents) && isPlainObject(stored.agents.defaults) ? stored.agents.defaults : {};
      const workspace = typeof defaults.workspace === "string" ? defaults.workspace : settings.workspace;
      return resetMemory(rpc, { workspace, stateDir: config.stateDir });
    },
    close: () => rpc.close(),
  };
}
