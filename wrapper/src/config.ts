import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError, httpUrl, logLevel, parseEnv, port, positiveInt } from "@svc/common";
import { z } from "zod";

/** The platform's permission plugin for OpenClaw, shipped in the same tree (and image) as the wrapper. */
export const DEFAULT_PLUGIN_DIR = fileURLToPath(new URL("../openclaw-plugin/", import.meta.url));

export const envSchema = z.object({
  WRAPPER_PORT: port(8080),
  /** Loopback port the runtime gateway listens on; everything not handled here is proxied to it. */
  RUNTIME_PORT: port(18789),
  LOG_LEVEL: logLevel(),
  HOST: z.string().default("0.0.0.0"),
  /**
   * When set, management routes need it (cookie `ocw_admin`, Bearer, or `x-admin-token`); it is also the key
   * of the wrapper's identity proof (`GET /api/identity`). It never reaches the runtime's environment.
   */
  WRAPPER_ADMIN_PASSWORD: z.string().optional(),
  /** The runtime process, split into words (no shell). `{port}` is replaced by RUNTIME_PORT. */
  RUNTIME_COMMAND: z
    .string()
    .default("openclaw gateway run --port {port} --bind loopback --auth token --allow-unconfigured"),
  /** The runtime's CLI: a configuration write is validated with `<cli> config validate --json`. */
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
   * `openclaw` (default): the runtime is OpenClaw; the wrapper owns the platform's part of its configuration,
   * loads the permission plugin and proves it is loaded before reporting `running`. `external`: an operator's
   * own runtime command (LOCAL_RUNTIME_COMMAND), run as given; its guard cannot be verified (status says so).
   */
  RUNTIME_KIND: z.enum(["openclaw", "external"], "must be openclaw or external").default("openclaw"),
  /** The platform backend: the agent's AI provider (`<url>/api/ai`) and classify hook. */
  PLATFORM_BACKEND_URL: httpUrl().optional(),
  /** The classify endpoint; default `<PLATFORM_BACKEND_URL>/api/hooks/classify`. */
  PLATFORM_CLASSIFY_URL: httpUrl().optional(),
  /** The model the agent asks the platform's AI proxy for. */
  AGENT_MODEL: z.string().trim().min(1).default("openai/gpt-4o-mini"),
  /** The persona the evaluation's judge scores answers against (default: a built-in one). */
  AGENT_PERSONA: z.string().optional(),
  /** The agent's AI provider name, as the platform knows it (shown in status). */
  AI_PROVIDER: z.string().optional(),
  /** The permission plugin's folder; default `wrapper/openclaw-plugin/`. */
  PLATFORM_PLUGIN_DIR: z.string().optional(),
  /** How long a dangerous tool call waits for a person's decision before it is refused. */
  PERMISSION_WAIT_SECONDS: positiveInt(300),
  /** How long the permission plugin has to answer its status method after the runtime is healthy. */
  RUNTIME_VERIFY_TIMEOUT_MS: positiveInt(60_000),
});

export type WrapperConfig = z.infer<typeof envSchema> & {
  configPath: string;
  stateDir: string;
  runtimeArgv: string[];
  cliArgv: string[];
  /** The platform's classify endpoint (null only for an external runtime without a backend). */
  classifyUrl: string | null;
  pluginDir: string;
  /** The environment the wrapper started with: the runtime and its CLI inherit it (PORT aside). */
  processEnv: Record<string, string | undefined>;
};

/**
 * The wrapper's secrets, each given as its variable or as `<VAR>_FILE`, the path of a file holding it (the
 * kubernetes driver mounts them from a Secret as files, never as environment variables).
 */
export const SECRET_FILE_VARIABLES = ["OPENCLAW_GATEWAY_TOKEN", "WRAPPER_ADMIN_PASSWORD"] as const;

/** `env` with each secret read from its `<VAR>_FILE` (one trailing newline dropped, as files are written). */
function withSecretFiles(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const resolved = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_FILE_VARIABLES) {
    const file = env[`${name}_FILE`]?.trim();
    if (!file) continue;
    if (env[name]?.trim()) {
      problems.push(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      resolved[name] = readFileSync(file, "utf8").replace(/\r?\n$/, "");
    } catch (err) {
      problems.push(`${name}_FILE: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? err})`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return resolved;
}

/** The wrapper's configuration, parsed once at start. */
export function loadWrapperConfig(given: Record<string, string | undefined> = process.env): WrapperConfig {
  const env = withSecretFiles(given);
  const parsed = parseEnv(envSchema, env);
  const stateDir = resolve(parsed.OPENCLAW_STATE_DIR);
  const runtimeArgv = parsed.RUNTIME_COMMAND.replaceAll("{port}", String(parsed.RUNTIME_PORT))
    .split(/\s+/)
    .filter(Boolean);
  const backend = parsed.PLATFORM_BACKEND_URL?.replace(/\/+$/, "");
  const classifyUrl = parsed.PLATFORM_CLASSIFY_URL ?? (backend ? `${backend}/api/hooks/classify` : null);
  const pluginDir = resolve(parsed.PLATFORM_PLUGIN_DIR ?? DEFAULT_PLUGIN_DIR);
  if (parsed.RUNTIME_KIND === "openclaw") {
    // Fail fast: an OpenClaw agent without its provider, classify hook or plugin would run unguarded or not at all.
    const problems: string[] = [];
    if (!backend) problems.push("PLATFORM_BACKEND_URL: required when RUNTIME_KIND is openclaw");
    if (!parsed.OPENCLAW_GATEWAY_TOKEN)
      problems.push("OPENCLAW_GATEWAY_TOKEN: required when RUNTIME_KIND is openclaw");
    if (!existsSync(`${pluginDir}/openclaw.plugin.json`))
      problems.push(`PLATFORM_PLUGIN_DIR: no permission plugin at ${pluginDir}`);
    if (problems.length > 0) throw new ConfigError(problems);
  }
  return {
    ...parsed,
    stateDir,
    configPath: resolve(parsed.OPENCLAW_CONFIG_PATH ?? `${stateDir}/openclaw.json`),
    runtimeArgv,
    cliArgv: parsed.RUNTIME_CLI_COMMAND.split(/\s+/).filter(Boolean),
    classifyUrl,
    pluginDir,
    processEnv: { ...env },
  };
}
