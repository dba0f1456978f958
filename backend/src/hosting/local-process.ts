/**
 * The local driver's process work: the wrapper's environment, spawning it as the leader of its own process
 * group with its output appended to a log file, stopping the group, and reading that log file back.
 */
import { spawn } from "node:child_process";
import { closeSync, openSync } from "node:fs";
import { open, rename, stat } from "node:fs/promises";
import { setTimeout as sleep } from "node:timers/promises";
import { groupMembers, isGroupAlive, processStartTicks, signalGroup } from "./proc";
import { HostingError, type ServiceLogLine } from "./types";

/** Variables of the platform's environment a wrapper may inherit: how to find programs, locale, time zone. */
export const INHERITED_VARIABLES = [
  "PATH",
  "LANG",
  "LC_ALL",
  "TZ",
  "TMPDIR",
  "NODE_ENV",
  "NODE_EXTRA_CA_CERTS",
] as const;
export type InheritedVariable = (typeof INHERITED_VARIABLES)[number];

/** The inherited variables that are set in `config` (the backend's, parsed at start). */
export function inheritedEnvironment(
  config: Partial<Record<InheritedVariable, string>>,
): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = config[name];
    if (value !== undefined) inherited[name] = value;
  }
  return inherited;
}
/** wrapper.log is moved aside to wrapper.log.1 at a start once it is this large. */
const LOG_ROTATE_BYTES = 10 * 1024 * 1024;
/** How much of the end of wrapper.log `tailLogFile` reads. */
const LOG_TAIL_BYTES = 256 * 1024;

export interface WrapperEnvironmentInput {
  /** What the wrapper inherits of the platform's environment (inheritedEnvironment). */
  inherited: Record<string, string>;
  /** The agent's own environment (agentEnvironment). */
  agentEnv: Record<string, string>;
  /** Wrapper settings from the driver's options (LOG_LEVEL, poll intervals, ...). */
  settings: Record<string, string>;
  home: string;
  stateDir: string;
  wrapperPort: number;
  runtimePort: number;
  /** RUNTIME_COMMAND, RUNTIME_KIND and (for OpenClaw) RUNTIME_CLI_COMMAND: see local-runtime.ts. */
  runtime: Record<string, string>;
}

/**
 * The wrapper's whole environment: a few inherited basics, the wrapper settings, the agent's variables,
 * then what the driver decides (ports, runtime command, state directory, loopback host). Nothing else of
 * the platform's environment, which holds its secrets.
 */
export function wrapperEnvironment(input: WrapperEnvironmentInput): Record<string, string> {
  return {
    ...input.inherited,
    LOG_LEVEL: "info",
    ...input.settings,
    ...input.agentEnv,
    HOME: input.home,
    HOST: "127.0.0.1",
    WRAPPER_PORT: String(input.wrapperPort),
    RUNTIME_PORT: String(input.runtimePort),
    ...input.runtime,
    OPENCLAW_STATE_DIR: input.stateDir,
  };
}

/**
 * Spawns `node --import tsx src/server.ts` in `wrapperDir`, detached; resolves with its pid once spawned.
 * With `user`, it runs as that user with umask 077 (files it makes, in /tmp too, are its own alone).
 */
export async function spawnWrapper(options: {
  wrapperDir: string;
  env: Record<string, string>;
  logPath: string;
  user?: { uid: number; gid: number };
}): Promise<{ pid: number; pidStart: string | null }> {
  const size = await stat(options.logPath).then(
    (s) => s.size,
    () => 0,
  );
  if (size > LOG_ROTATE_BYTES) await rename(options.logPath, `${options.logPath}.1`);
  const logFd = openSync(options.logPath, "a", 0o600);
  try {
    const wrapper = [process.execPath, "--import", "tsx", "src/server.ts"];
    // spawn has no umask option: a shell sets it and execs node (same pid).
    const [command, ...args] = options.user
      ? ["/bin/sh", "-c", 'umask 077 && exec "$0" "$@"', ...wrapper]
      : wrapper;
    const child = spawn(command, args, {
      cwd: options.wrapperDir,
      env: options.env,
      detached: true,
      stdio: ["ignore", logFd, logFd],
      ...(options.user ? { uid: options.user.uid, gid: options.user.gid } : {}),
    });
    const pid = await new Promise<number>((resolve, reject) => {
      child.once("spawn", () => resolve(child.pid as number));
      child.once("error", reject);
    }).catch((err: Error) => {
      throw new HostingError("platform", `could not start the wrapper: ${err.message}`);
    });
    // The platform must be able to exit while its agents run on.
    child.unref();
    return { pid, pidStart: await processStartTicks(pid) };
  } finally {
    closeSync(logFd);
  }
}

/**
 * SIGTERM to process group `pgid` (the wrapper stops its runtime), SIGKILL once `graceMs` passed; resolves
 * when the group is gone (or, after SIGKILL, at most 5 s later). Returns whether SIGKILL was needed.
 */
export async function stopProcessGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!(await isGroupAlive(pgid))) return false;
  signalGroup(pgid, "SIGTERM");
  const deadline = performance.now() + graceMs;
  while ((await isGroupAlive(pgid)) && performance.now() < deadline) await sleep(50);
  if (!(await isGroupAlive(pgid))) return false;
  signalGroup(pgid, "SIGKILL");
  const killDeadline = performance.now() + 5_000;
  while (((await groupMembers(pgid))?.length ?? 0) > 0 && performance.now() < killDeadline) await sleep(20);
  return true;
}

/** The last `count` lines of the log file; JSON lines with a `time` (epoch ms) carry it, others the mtime. */
export async function tailLogFile(path: string, count: number): Promise<ServiceLogLine[]> {
  let text: string;
  let mtime: string;
  try {
    const file = await open(path, "r");
    try {
      const { size, mtime: modified } = await file.stat();
      const start = Math.max(0, size - LOG_TAIL_BYTES);
      const buffer = Buffer.alloc(size - start);
      await file.read(buffer, 0, buffer.length, start);
      text = buffer.toString("utf8");
      // A read that starts mid-file starts mid-line: drop that partial line.
      if (start > 0) text = text.slice(text.indexOf("\n") + 1);
      mtime = modified.toISOString();
    } finally {
      await file.close();
    }
  } catch {
    return [];
  }
  return text
    .split("\n")
    .filter((line) => line.length > 0)
    .slice(-count)
    .map((line) => {
      let ts = mtime;
      try {
        const time = (JSON.parse(line) as { time?: unknown }).time;
        if (typeof time === "number") ts = new Date(time).toISOString();
      } catch {}
      return { ts, stream: "stdout" as const, line };
    });
}
