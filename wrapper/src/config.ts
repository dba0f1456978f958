import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, httpUrl, logLevel, parseEnv, port, positiveInt } from "@svc/common";
import { z } from "zod";

/** The platform's pre-tool-use hook, shipped in the same tree (and image) as the wrapper. */
export const DEFAULT_PRE_TOOL_USE_HOOK = fileURLToPath(
  new URL("../../backend/hooks/pre-tool-use.mjs", import.meta.url),
);
/** The runtime's flag that enables the pre-tool-use hook (the spec's `--hook-pre-tool-use`). */
export const HOOK_FLAG = "--hook-pre-tool-use";

export const envSchema = z.object({
  WRAPPER_PORT: port(8080),
  /** Loopback port the runtime gateway listens on; everything not handled here is proxied to it. */
  RUNTIME_PORT: port(18789),
  LOG_LEVEL: logLevel(),
  HOST: z.string().default("0.0.0.0"),
  /** When set, management routes need it (cookie `ocw_admin`, Bearer, or `x-admin-token`). */
  WRAPPER_ADMIN_PASSWORD: z.string().optional(),
  /** The runtime process, split into words (no shell). `{port}` is replaced by RUNTIME_PORT. */
  RUNTIME_COMMAND: z
    .string()
    .default("openclaw gateway run --port {port} --bind loopback --auth token --allow-unconfigured"),
  /** The runtime's CLI, for pairing (`<cli> devices list --json`, `devices approve|reject <id>`). */
  RUNTIME_CLI_COMMAND: z.string().default("openclaw"),
  /** Gateway token handed to the runtime (`OPENCLAW_GATEWAY_TOKEN`) and shown to admins in status. */
  OPENCLAW_GATEWAY_TOKEN: z.string().optional(),
  OPENCLAW_STATE_DIR: z.string().default(".data/runtime"),
  /** The runtime configuration file (JSON5); default `<OPENCLAW_STATE_DIR>/openclaw.json`. */
  OPENCLAW_CONFIG_PATH: z.string().optional(),
  /** How often `/healthz` is polled while the runtime is starting. */
  RUNTIME_HEALTH_POLL_MS: positiveInt(500),
  /** Stop: SIGTERM, then SIGKILL after this long. */
  RUNTIME_STOP_TIMEOUT_MS: positiveInt(10_000),
  /**
   * Set by provisioning: the platform's classify endpoint. When set, the runtime is started with
   * `--hook-pre-tool-use <PRE_TOOL_USE_HOOK>`, so every tool call is classified (the hook reads it too).
   */
  PLATFORM_CLASSIFY_URL: httpUrl().optional(),
  /** The pre-tool-use hook script; default the platform's `backend/hooks/pre-tool-use.mjs`. */
  PRE_TOOL_USE_HOOK: z.string().optional(),
});

export type WrapperConfig = z.infer<typeof envSchema> & {
  configPath: string;
  stateDir: string;
  runtimeArgv: string[];
  /** The hook script the runtime is started with, or null when PLATFORM_CLASSIFY_URL is unset. */
  preToolUseHook: string | null;
  /** The environment the wrapper started with: the runtime and its CLI inherit it (PORT aside). */
  processEnv: Record<string, string | undefined>;
};

/** The wrapper's configuration, parsed once at start. */
export function loadWrapperConfig(env: Record<string, string | undefined> = process.env): WrapperConfig {
  const parsed = parseEnv(envSchema, env);
  const stateDir = resolve(parsed.OPENCLAW_STATE_DIR);
  const runtimeArgv = parsed.RUNTIME_COMMAND.replaceAll("{port}", String(parsed.RUNTIME_PORT))
    .split(/\s+/)
    .filter(Boolean);
  let preToolUseHook: string | null = null;
  if (parsed.PLATFORM_CLASSIFY_URL) {
    const at = runtimeArgv.findIndex((arg) => arg === HOOK_FLAG || arg.startsWith(`${HOOK_FLAG}=`));
    if (at !== -1) {
      // RUNTIME_COMMAND names its own hook: it is kept as given.
      preToolUseHook =
        runtimeArgv[at] === HOOK_FLAG
          ? (runtimeArgv[at + 1] ?? "")
          : runtimeArgv[at].slice(HOOK_FLAG.length + 1);
    } else {
      preToolUseHook = resolve(parsed.PRE_TOOL_USE_HOOK ?? DEFAULT_PRE_TOOL_USE_HOOK);
      runtimeArgv.push(HOOK_FLAG, preToolUseHook);
    }
    // Fail-closed: an agent the platform classifies never runs without its hook.
    if (!preToolUseHook || !existsSync(preToolUseHook)) {
      throw new ConfigError([
        `PRE_TOOL_USE_HOOK: "${preToolUseHook}" does not exist (PLATFORM_CLASSIFY_URL is set, so the runtime needs its pre-tool-use hook)`,
      ]);
    }
  }
  return {
    ...parsed,
    stateDir,
    configPath: resolve(parsed.OPENCLAW_CONFIG_PATH ?? `${stateDir}/openclaw.json`),
    runtimeArgv,
    preToolUseHook,
    processEnv: { ...env },
  };
}
