/**
 * The runtime installer's variables (spread into the backend's envSchema; the `runtime:install` CLI reads
 * only these). Relative directories are resolved against the repository root, like LOCAL_AGENTS_DIR.
 */
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { PLATFORM_SECRET_NAMES } from "@svc/common";
import { MANAGED_BASELINE_VERSION } from "@svc/common/runtime-version";
import { z } from "zod";

const REPO_ROOT = fileURLToPath(new URL("../../..", import.meta.url));

export const runtimeInstallEnv = {
  /** The OpenClaw release local agents run (installed from the npm registry on first use). */
  RUNTIME_VERSION: z
    .string()
    .regex(/^\d[0-9A-Za-z.+-]*$/, "must be an OpenClaw release number like 2026.4.11")
    .default(MANAGED_BASELINE_VERSION),
  /** The platform's state directory (`npm start` sets it; default `.data` of the repository). */
  DATA_DIR: z
    .string()
    .default(".data")
    .transform((dir) => resolve(REPO_ROOT, dir)),
  /** Where runtimes are installed (`<dir>/openclaw-<version>/`); default `$DATA_DIR/runtimes`. */
  RUNTIMES_DIR: z
    .string()
    .optional()
    .transform((dir) => (dir === undefined ? undefined : resolve(REPO_ROOT, dir))),
};

/** RUNTIMES_DIR, or `$DATA_DIR/runtimes` when it is unset. */
export function runtimesDirOf(config: { RUNTIMES_DIR?: string; DATA_DIR: string }): string {
  return config.RUNTIMES_DIR ?? join(config.DATA_DIR, "runtimes");
}

/**
 * npm's environment for an install: the platform's own (PATH finds npm; HOME, proxies and `npm_config_*`
 * apply as they do for the operator's npm), without the platform's secrets, which npm has no use for.
 */
export function npmEnvironment(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of PLATFORM_SECRET_NAMES) delete env[name];
  return env;
}
