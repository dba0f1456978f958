/**
 * `npm install` of registry packages into a prefix, with npm's failure turned into an error that says what
 * is missing: npm itself, the registry, disk space, or the package. npm runs through `sh` with umask 022, so
 * everything it writes is readable by agents that run as their own OS users, whatever the platform's umask.
 */
import { spawn } from "node:child_process";
import { RuntimeInstallError } from "./errors";

export interface NpmInstallOptions {
  prefix: string;
  packages: string[];
  /** The whole environment of npm (PATH decides which npm and which node run). */
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal;
}

/** How much of npm's output is kept for the error message. */
const OUTPUT_LIMIT = 64 * 1024;

const NETWORK =
  /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ERR_SOCKET_TIMEOUT|network)\b/i;

/** npm's own error lines, without the noise (log file location, verbose stack), cut to a readable size. */
export function trimNpmMessage(output: string): string {
  const lines = output
    .split("\n")
    .map((line) => line.trimEnd())
    .filter((line) => /^npm (error|ERR!)/.test(line))
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, ""))
    .filter((line) => line && !/complete log of this run|^\s*\/.*\.log$|^A complete log/i.test(line));
  const text = (lines.length > 0 ? lines : output.split("\n").filter(Boolean)).slice(0, 6).join("; ");
  return text.length > 600 ? `${text.slice(0, 599)}…` : text;
}

/** The error for a failed npm run (exit code `code`, combined output `output`). */
export function npmFailure(packages: string[], code: number | null, output: string): RuntimeInstallError {
  const what = packages.join(" ");
  if (code === 127 && /npm[^\n]*not found/i.test(output))
    return new RuntimeInstallError(
      "npm_missing",
      "npm was not found on PATH: the agent runtime is installed with npm (it comes with Node.js), or set LOCAL_RUNTIME_COMMAND to a runtime you installed yourself",
    );
  const message = trimNpmMessage(output) || `exit code ${code}`;
  if (/\bENOSPC\b|no space left on device/i.test(output))
    return new RuntimeInstallError("disk_full", `not enough disk space to install ${what}: ${message}`);
  if (/\bE404\b|404 Not Found|No matching version|notarget/i.test(output))
    return new RuntimeInstallError("not_found", `the npm registry has no ${what}: ${message}`);
  if (NETWORK.test(output))
    return new RuntimeInstallError("registry_unreachable", `the npm registry is unreachable: ${message}`);
  return new RuntimeInstallError("npm_failed", `npm install ${what} failed: ${message}`);
}

/** Runs `npm install --no-audit --no-fund --ignore-scripts --prefix <prefix> <packages…>`. */
export async function npmInstall(options: NpmInstallOptions): Promise<void> {
  const args = [
    "install",
    "--no-audit",
    "--no-fund",
    "--ignore-scripts",
    "--no-update-notifier",
    "--save-exact",
    "--prefix",
    options.prefix,
    ...options.packages,
  ];
  const child = spawn("/bin/sh", ["-c", 'umask 022 && exec npm "$@"', "npm", ...args], {
    env: options.env,
    stdio: ["ignore", "pipe", "pipe"],
    signal: options.signal,
  });
  let output = "";
  const keep = (chunk: Buffer) => {
    if (output.length < OUTPUT_LIMIT) output += chunk.toString("utf8");
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const code = await new Promise<number | null>((resolve, reject) => {
    child.once("error", reject);
    child.once("close", (exit) => resolve(exit));
  });
  if (code !== 0) throw npmFailure(options.packages, code, output);
}
