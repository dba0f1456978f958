/**
 * Why the agent runtime could not be installed, in words an operator can act on. `reason` lets callers
 * (the provision job, the CLI) tell a machine problem (npm, registry, disk, platform) from a bug.
 */
export type RuntimeInstallReason =
  | "npm_missing"
  | "registry_unreachable"
  | "not_found"
  | "disk_full"
  | "unsupported_platform"
  | "bad_config"
  | "npm_failed"
  | "broken_install"
  | "lock_timeout";

export class RuntimeInstallError extends Error {
  constructor(
    readonly reason: RuntimeInstallReason,
    message: string,
  ) {
    super(message);
    this.name = "RuntimeInstallError";
  }
}
