import { type ChildProcess, spawn } from "node:child_process";

export interface LauncherRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when `text` appears on stdout; rejects when the launcher exits first or time runs out. */
  waitFor(text: string, timeoutMs: number): Promise<void>;
  exited: Promise<number | null>;
}

/** Runs `scripts/start.ts` from `root` the way `npm start` does, with extra environment (as `user`, if given). */
export function runLauncher(
  root: string,
  env: Record<string, string>,
  user?: { uid: number; gid: number },
): LauncherRun {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/start.ts"], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: "", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    ...user,
  });
  let out = "";
  let err = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    async waitFor(text, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      let done = false;
      exited.then(() => {
        done = true;
      });
      while (!out.includes(text)) {
        if (done) throw new Error(`launcher exited before "${text}":\n${out}\n${err}`);
        if (Date.now() > deadline) throw new Error(`timed out waiting for "${text}":\n${out}\n${err}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    },
  };
}

/** Stops a launcher like Ctrl-C would, and returns its exit code. */
export async function stopLauncher(run: LauncherRun): Promise<number | null> {
  run.child.kill("SIGTERM");
  return run.exited;
}

export async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}
