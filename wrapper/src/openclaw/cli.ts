/** The runtime's command-line tool (`RUNTIME_CLI_COMMAND`), run without a shell and with a deadline. */
import { execFile } from "node:child_process";

const CLI_TIMEOUT_MS = 30_000;
const CLI_MAX_OUTPUT = 4 * 1024 * 1024;

export class CliError extends Error {}

export interface CliResult {
  /** The exit code (null when killed by a signal). */
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `<cli> ...args` and resolves with its exit code and output whatever the code (commands like
 * `config validate --json` answer on stdout and exit 1); rejects only when it could not run or timed out.
 */
export function runCli(
  cliArgv: string[],
  args: string[],
  env?: NodeJS.ProcessEnv,
  timeoutMs = CLI_TIMEOUT_MS,
): Promise<CliResult> {
  const [command, ...prefix] = cliArgv;
  if (!command) return Promise.reject(new CliError("no runtime CLI configured"));
  return new Promise((resolve, reject) => {
    execFile(
      command,
      [...prefix, ...args],
      { env, timeout: timeoutMs, maxBuffer: CLI_MAX_OUTPUT, windowsHide: true },
      (error, stdout, stderr) => {
        if (!error) return resolve({ code: 0, stdout: String(stdout), stderr: String(stderr) });
        const failure = error as NodeJS.ErrnoException & { killed?: boolean; code?: unknown };
        if (failure.killed) return reject(new CliError(`runtime CLI timed out after ${timeoutMs} ms`));
        if (typeof failure.code === "number")
          return resolve({ code: failure.code, stdout: String(stdout), stderr: String(stderr) });
        reject(new CliError(`runtime CLI could not run: ${error.message}`));
      },
    );
  });
}

/** The last JSON value printed on stdout (the CLI may print notices before it). */
export function parseCliJson(stdout: string): unknown {
  const text = stdout.trim();
  try {
    return JSON.parse(text);
  } catch {
    const start = Math.min(
      ...["{", "["].map((open) => text.indexOf(open)).filter((at) => at !== -1),
      Number.POSITIVE_INFINITY,
    );
    if (Number.isFinite(start)) {
      try {
        return JSON.parse(text.slice(start));
      } catch {}
    }
    throw new CliError("the runtime CLI did not print JSON");
  }
}
