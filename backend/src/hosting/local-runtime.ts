/**
 * What the local driver's wrappers run as the agent runtime: the managed OpenClaw (RUNTIME_VERSION, installed
 * under RUNTIMES_DIR with its own Node 22) by default, or an operator's LOCAL_RUNTIME_COMMAND as given.
 * The wrapper splits RUNTIME_COMMAND and RUNTIME_CLI_COMMAND on whitespace, so the installed paths must have
 * none (the installer refuses such a RUNTIMES_DIR).
 */
import type { Logger } from "pino";
import { ensureRuntime, type InstalledRuntime, RuntimeInstallError } from "../runtime-install/index";
import { HostingError } from "./types";

/** OpenClaw's gateway on the agent's runtime port, loopback only, token auth, no onboarding needed. */
export const OPENCLAW_GATEWAY_ARGS =
  "gateway run --port {port} --bind loopback --auth token --allow-unconfigured";

export type LocalRuntimeSource =
  | { kind: "external"; command: string }
  | { kind: "openclaw"; version: string; runtimesDir: string; env?: NodeJS.ProcessEnv };

/** The wrapper's runtime variables for an installed OpenClaw. */
export function openclawRuntimeVariables(runtime: Pick<InstalledRuntime, "command">): Record<string, string> {
  const cli = runtime.command.join(" ");
  return {
    RUNTIME_COMMAND: `${cli} ${OPENCLAW_GATEWAY_ARGS}`,
    RUNTIME_CLI_COMMAND: cli,
    RUNTIME_KIND: "openclaw",
  };
}

/** The wrapper's runtime variables for an operator's command: run as given, nothing of it verified. */
export function externalRuntimeVariables(command: string): Record<string, string> {
  return { RUNTIME_COMMAND: command, RUNTIME_KIND: "external" };
}

/**
 * The managed runtime, installed unless it is there; `onStep` hears each install step. A machine that
 * cannot install it gets a HostingError naming what is missing (npm, registry, disk, platform).
 */
export async function installedOpenclaw(
  source: Extract<LocalRuntimeSource, { kind: "openclaw" }>,
  options: { logger?: Logger; onStep?: (step: string) => void; signal?: AbortSignal } = {},
): Promise<InstalledRuntime> {
  try {
    return await ensureRuntime({
      runtimesDir: source.runtimesDir,
      version: source.version,
      env: source.env,
      logger: options.logger,
      signal: options.signal,
      onProgress: (progress) => options.onStep?.(progress.message),
    });
  } catch (err) {
    if (err instanceof RuntimeInstallError)
      throw new HostingError(
        err.reason === "bad_config" || err.reason === "unsupported_platform" ? "not_configured" : "platform",
        `the agent runtime ${source.version} could not be installed: ${err.message}`,
      );
    throw err;
  }
}
