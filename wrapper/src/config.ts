import { resolve } from "node:path";
import { logLevel, parseEnv, port, positiveInt } from "@svc/common";
import { z } from "zod";

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
});

export type WrapperConfig = z.infer<typeof envSchema> & {
  configPath: string;
  stateDir: string;
  runtimeArgv: string[];
};

/** The wrapper's configuration, parsed once at start. */
export function loadWrapperConfig(env: Record<string, string | undefined> = process.env): WrapperConfig {
  const parsed = parseEnv(envSchema, env);
  const stateDir = resolve(parsed.OPENCLAW_STATE_DIR);
  const runtimeArgv = parsed.RUNTIME_COMMAND.replaceAll("{port}", String(parsed.RUNTIME_PORT))
    .split(/\s+/)
    .filter(Boolean);
  return {
    ...parsed,
    stateDir,
    configPath: resolve(parsed.OPENCLAW_CONFIG_PATH ?? `${stateDir}/openclaw.json`),
    runtimeArgv,
  };
}
