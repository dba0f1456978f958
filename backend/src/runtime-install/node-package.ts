import { RuntimeInstallError } from "./errors";

/** The Node major the managed OpenClaw runtime runs on (OpenClaw 2026.4.11 needs Node >= 22.14). */
export const RUNTIME_NODE_MAJOR = 22;

/**
 * The npm registry package that carries a Node binary for this machine (`bin/node` inside it): the only
 * place the platform may get Node 22 from. Linux on x64 and arm64 only.
 */
export function nodePackageFor(platform: string = process.platform, arch: string = process.arch): string {
  if (platform === "linux" && (arch === "x64" || arch === "arm64")) return `node-linux-${arch}`;
  throw new RuntimeInstallError(
    "unsupported_platform",
    `the agent runtime installs on linux-x64 and linux-arm64 only, not ${platform}-${arch}: set LOCAL_RUNTIME_COMMAND to a runtime you installed yourself, or use HOSTING_PROVIDER=docker`,
  );
}
