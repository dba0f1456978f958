import { type ChildProcess, spawn } from "node:child_process";

export interface ManagedProcess {
  name: string;
  child: ChildProcess;
  /** Resolves when the process has exited, for whatever reason. */
  exited: Promise<number | null>;
  stop(): Promise<void>;
}

/**
 * Spawns a service in its own process group (so stopping it also stops anything it started), with every
 * output line prefixed by its name.
 */
export function spawnService(
  name: string,
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; write: (line: string) => void },
): ManagedProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const prefix = (stream: NodeJS.ReadableStream) => {
    let partial = "";
    stream.on("data", (chunk: Buffer) => {
      const lines = (partial + chunk.toString()).split("\n");
      partial = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) options.write(`[${name}] ${line}`);
    });
    stream.on("end", () => {
      if (partial.trim()) options.write(`[${name}] ${partial}`);
    });
  };
  if (child.stdout) prefix(child.stdout);
  if (child.stderr) prefix(child.stderr);
  const exited = new Promise<number | null>((resolve) => {
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 : null)));
    child.once("error", () => resolve(1));
  });
  let stopping: Promise<void> | undefined;
  return {
    name,
    child,
    exited,
    stop() {
      stopping ??= stopGroup(child, exited);
      return stopping;
    },
  };
}

async function stopGroup(child: ChildProcess, exited: Promise<unknown>): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // the group is already gone
    }
  };
  signalGroup("SIGTERM");
  const killed = setTimeout(() => signalGroup("SIGKILL"), 10_000);
  await exited;
  clearTimeout(killed);
  // Anything the service left behind in its group goes too.
  signalGroup("SIGKILL");
}

/** Polls `url` until it answers 2xx, the process exits, or the time runs out. */
export async function waitForHealthy(url: string, proc: ManagedProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exitCode: number | null | undefined;
  proc.exited.then((code) => {
    exitCode = code;
  });
  let last = "no answer";
  while (Date.now() < deadline) {
    if (exitCode !== undefined)
      throw new Error(`${proc.name} exited (code ${exitCode}) before it became healthy`);
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2_000) });
      if (res.ok) return;
      last = `HTTP ${res.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${proc.name} did not become healthy at ${url} within ${timeoutMs / 1000} s (${last})`);
}
