import { type ChildProcess, spawn } from "node:child_process";
import { EventEmitter } from "node:events";
import { type Clock, createOutboundClient, systemClock } from "@svc/common";
import { LogRing } from "./logs";

/** The runtime gateway's state, as `/api/status` reports it. */
export type GatewayState = "starting" | "running" | "stopped" | "crashed";

export interface SupervisorOptions {
  /** The runtime command, already split into words; spawned without a shell. */
  argv: string[];
  /** Loopback port the runtime listens on (`OPENCLAW_GATEWAY_PORT`, polled at `/healthz`). */
  port: number;
  /** Gateway token handed to the runtime as `OPENCLAW_GATEWAY_TOKEN`. */
  token?: string | null;
  stateDir: string;
  configPath: string;
  /** Base environment of the runtime (the wrapper's, from its config); `PORT` is removed from it. */
  env: NodeJS.ProcessEnv;
  healthPollMs: number;
  stopTimeoutMs: number;
  clock?: Clock;
  /** First restart delay after a crash, doubled per crash up to `maxBackoffMs` (default 1 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Running this long before a crash resets the backoff (default 5 minutes). */
  backoffResetMs?: number;
  logs?: LogRing;
  /** Runs before every spawn (e.g. puts the platform's configuration in place); a throw is a failed start. */
  prepare?: () => Promise<void>;
  /**
   * Runs once the runtime answers `/healthz`, before the state becomes `running` (e.g. proves the permission
   * plugin is loaded). A throw stops the runtime: it must not serve unguarded; the state becomes `crashed`.
   */
  verify?: () => Promise<void>;
}

export interface Supervisor {
  readonly state: GatewayState;
  /** Pid of the live runtime process, or null. */
  readonly pid: number | null;
  readonly logs: LogRing;
  /** The token handed to the runtime (`OPENCLAW_GATEWAY_TOKEN`), or null. */
  readonly gatewayToken: string | null;
  /** Why the runtime last failed (start, verification or exit), until it runs again; null otherwise. */
  readonly lastError: string | null;
  /** Spawns the runtime (no-op when it is already up); resolves once spawned, before it is healthy. */
  start(): Promise<void>;
  /** SIGTERM, then SIGKILL after `stopTimeoutMs`; resolves when the process is gone, state `stopped`. */
  stop(): Promise<void>;
  restart(): Promise<void>;
  /** Sends `signal` to the live runtime; false when none runs. */
  signal(signal: NodeJS.Signals): boolean;
  /** Whole seconds since the state last became `running`; 0 in any other state. */
  uptimeSeconds(): number;
  /** Resolves when the state becomes `state` (at once if it already is); rejects after `timeoutMs`. */
  waitFor(state: GatewayState, timeoutMs?: number): Promise<void>;
  on(event: "state", listener: (state: GatewayState, previous: GatewayState) => void): this;
  off(event: "state", listener: (state: GatewayState, previous: GatewayState) => void): this;
  listenerCount(event: "state"): number;
}

const WRAPPER_PREFIX = "[wrapper]";
/** How long after the runtime exits its output pipes may stay open (held by a grandchild) before we move on. */
const EXIT_OUTPUT_GRACE_MS = 500;

/** The runtime's environment: the base one without `PORT`, plus where and how the gateway runs. */
export function runtimeEnv(
  options: Pick<SupervisorOptions, "env" | "port" | "token" | "stateDir" | "configPath">,
): NodeJS.ProcessEnv {
  // The wrapper's own secret never reaches the runtime (nor, through it, the agent's tools), nor its file's path.
  const {
    PORT: _port,
    WRAPPER_ADMIN_PASSWORD: _password,
    WRAPPER_ADMIN_PASSWORD_FILE: _passwordFile,
    ...rest
  } = options.env;
  const env: NodeJS.ProcessEnv = {
    ...rest,
    OPENCLAW_GATEWAY_PORT: String(options.port),
    OPENCLAW_STATE_DIR: options.stateDir,
    OPENCLAW_CONFIG_PATH: options.configPath,
    // OpenClaw respawns itself detached on a restart-needing change unless told not to: the wrapper would
    // read the exit as a crash while an orphan serves traffic.
    OPENCLAW_NO_RESPAWN: "1",
    NO_COLOR: "1",
    // OpenClaw's default log file and scratch files go under TMPDIR: one per agent, not a shared /tmp.
    TMPDIR: `${options.stateDir}/tmp`,
  };
  if (options.token) env.OPENCLAW_GATEWAY_TOKEN = options.token;
  else delete env.OPENCLAW_GATEWAY_TOKEN;
  return env;
}

class RuntimeSupervisor extends EventEmitter implements Supervisor {
  readonly logs: LogRing;
  private current: GatewayState = "stopped";
  private child: ChildProcess | null = null;
  private childExited: Promise<void> = Promise.resolve();
  /** Whether the runtime should be up: an exit while true is a crash. */
  private wanted = false;
  private runningSince: number | null = null;
  private failure: string | null = null;
  /** Why `verify` refused the live runtime (it is being stopped for it). */
  private rejection: string | null = null;
  private backoffMs: number;
  private restartTimer: NodeJS.Timeout | undefined;
  private healthTimer: NodeJS.Timeout | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly clock: Clock;
  private readonly initialBackoffMs: number;
  private readonly maxBackoffMs: number;
  private readonly backoffResetMs: number;

  constructor(private readonly options: SupervisorOptions) {
    super();
    if (options.argv.length === 0) throw new Error("runtime command is empty");
    this.clock = options.clock ?? systemClock;
    this.logs = options.logs ?? new LogRing(undefined, this.clock);
    this.initialBackoffMs = options.initialBackoffMs ?? 1_000;
    this.maxBackoffMs = options.maxBackoffMs ?? 60_000;
    this.backoffResetMs = options.backoffResetMs ?? 5 * 60_000;
    this.backoffMs = this.initialBackoffMs;
  }

  get state(): GatewayState {
    return this.current;
  }

  get gatewayToken(): string | null {
    return this.options.token || null;
  }

  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  get lastError(): string | null {
    return this.failure;
  }

  signal(signal: NodeJS.Signals): boolean {
    return this.child?.kill(signal) ?? false;
  }

  start(): Promise<void> {
    return this.serialize(async () => {
      this.wanted = true;
      clearTimeout(this.restartTimer);
      this.restartTimer = undefined;
      if (!this.child) await this.launch();
    });
  }

  stop(): Promise<void> {
    return this.serialize(() => this.stopNow());
  }

  restart(): Promise<void> {
    return this.serialize(async () => {
      await this.stopNow();
      // An asked-for restart is not a crash: the next crash starts from the shortest backoff again.
      this.backoffMs = this.initialBackoffMs;
      this.wanted = true;
      await this.launch();
    });
  }

  uptimeSeconds(): number {
    if (this.current !== "running" || this.runningSince === null) return 0;
    return Math.max(0, Math.floor((this.clock.now().getTime() - this.runningSince) / 1000));
  }

  waitFor(state: GatewayState, timeoutMs = 10_000): Promise<void> {
    if (this.current === state) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const listener = (next: GatewayState): void => {
        if (next !== state) return;
        clearTimeout(timer);
        this.off("state", listener);
        resolve();
      };
      const timer = setTimeout(() => {
        this.off("state", listener);
        reject(new Error(`runtime did not reach ${state} within ${timeoutMs} ms (state ${this.current})`));
      }, timeoutMs);
      this.on("state", listener);
    });
  }

  private serialize<T>(operation: () => Promise<T>): Promise<T> {
    const result = this.queue.then(operation);
    this.queue = result.catch(() => undefined);
    return result;
  }

  private setState(next: GatewayState): void {
    const previous = this.current;
    if (previous === next) return;
    this.current = next;
    if (next === "running") {
      this.runningSince = this.clock.now().getTime();
      this.failure = null;
    }
    this.emit("state", next, previous);
  }

  private note(line: string): void {
    this.logs.push("stderr", `${WRAPPER_PREFIX} ${line}`);
  }

  /** Prepares (when asked to), then spawns; a failed preparation is a failed start, retried with backoff. */
  private async launch(): Promise<void> {
    if (this.options.prepare) {
      this.setState("starting");
      try {
        await this.options.prepare();
      } catch (error) {
        this.scheduleRestart(`runtime could not be prepared: ${(error as Error).message}`);
        return;
      }
      if (!this.wanted || this.child) return;
    }
    this.spawnRuntime();
  }

  private spawnRuntime(): void {
    this.rejection = null;
    const [command, ...args] = this.options.argv;
    const child = spawn(command, args, {
      env: runtimeEnv(this.options),
      stdio: ["ignore", "pipe", "pipe"],
      shell: false,
    });
    this.child = child;
    this.setState("starting");
    let spawnError: Error | null = null;
    let resolveExited: () => void = () => undefined;
    this.childExited = new Promise((resolve) => {
      resolveExited = resolve;
    });

    child.stdout?.on("data", (chunk: Buffer) => this.logs.write("stdout", chunk));
    child.stderr?.on("data", (chunk: Buffer) => this.logs.write("stderr", chunk));
    child.once("spawn", () => this.pollHealth(child));
    child.on("error", (error) => {
      // Without a pid the process never started (e.g. command not found): no exit event will follow.
      if (child.pid === undefined) {
        spawnError = error;
        this.onChildGone(child, null, null, error);
        resolveExited();
      }
    });
    // Prefer `close` (after the output pipes are drained, so every line is in the ring before the state
    // moves), but a grandchild holding the pipes open must not hide the exit: after `exit`, wait briefly.
    let gone = false;
    const finish = (code: number | null, signal: NodeJS.Signals | null): void => {
      if (gone || spawnError) return;
      gone = true;
      this.onChildGone(child, code, signal, null);
      resolveExited();
    };
    child.once("exit", (code, signal) => {
      setTimeout(() => finish(code, signal), EXIT_OUTPUT_GRACE_MS).unref();
    });
    child.once("close", finish);
  }

  private onChildGone(
    child: ChildProcess,
    code: number | null,
    signal: NodeJS.Signals | null,
    error: Error | null,
  ): void {
    if (this.child !== child) return;
    this.child = null;
    clearTimeout(this.healthTimer);
    this.healthTimer = undefined;
    this.logs.flush();
    if (!this.wanted) {
      this.note(`runtime stopped (${describeExit(code, signal)})`);
      this.setState("stopped");
      return;
    }
    const upFor =
      this.current === "running" && this.runningSince !== null
        ? this.clock.now().getTime() - this.runningSince
        : 0;
    if (upFor >= this.backoffResetMs) this.backoffMs = this.initialBackoffMs;
    const reason = error
      ? `runtime could not be started: ${this.options.argv[0]}: ${error.message}`
      : (this.rejection ?? `runtime exited unexpectedly (${describeExit(code, signal)})`);
    this.scheduleRestart(reason);
  }

  /** State `crashed` with `reason`, and a new start after the current backoff (doubled for the next one). */
  private scheduleRestart(reason: string): void {
    const delay = this.backoffMs;
    this.backoffMs = Math.min(this.backoffMs * 2, this.maxBackoffMs);
    this.failure = reason;
    this.note(`${reason}; restarting in ${delay} ms`);
    this.setState("crashed");
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      void this.serialize(async () => {
        if (this.wanted && !this.child) await this.launch();
      });
    }, delay);
  }

  private pollHealth(child: ChildProcess): void {
    const url = `http://127.0.0.1:${this.options.port}/healthz`;
    const probe = async (): Promise<void> => {
      this.healthTimer = undefined;
      if (this.child !== child || this.current !== "starting") return;
      const healthy = await isHealthy(url, Math.max(this.options.healthPollMs, 1_000));
      if (this.child !== child || this.current !== "starting") return;
      if (!healthy) {
        this.healthTimer = setTimeout(probe, this.options.healthPollMs);
        return;
      }
      if (this.options.verify) {
        try {
          await this.options.verify();
        } catch (error) {
          if (this.child !== child) return;
          // Fail closed: a runtime that cannot prove its guard is stopped, never reported running.
          this.rejection = `runtime refused: ${(error as Error).message}`;
          child.kill("SIGTERM");
          return;
        }
        if (this.child !== child || this.current !== "starting") return;
      }
      this.setState("running");
    };
    void probe();
  }

  private async stopNow(): Promise<void> {
    this.wanted = false;
    clearTimeout(this.restartTimer);
    this.restartTimer = undefined;
    const child = this.child;
    if (!child) {
      this.setState("stopped");
      return;
    }
    const exited = this.childExited;
    child.kill("SIGTERM");
    const killTimer = setTimeout(() => {
      if (this.child === child) {
        this.note(`runtime ignored SIGTERM for ${this.options.stopTimeoutMs} ms; sending SIGKILL`);
        child.kill("SIGKILL");
      }
    }, this.options.stopTimeoutMs);
    try {
      await exited;
    } finally {
      clearTimeout(killTimer);
    }
  }
}

function describeExit(code: number | null, signal: NodeJS.Signals | null): string {
  return signal ? `signal ${signal}` : `code ${code}`;
}

/** The runtime's own health endpoint, on loopback: configured, so no URL guard. */
const runtimeClient = createOutboundClient({ name: "the runtime", maxResponseBytes: 64 * 1024 });

async function isHealthy(url: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await runtimeClient.open({ url, timeoutMs });
    if (response.status < 200 || response.status > 299) {
      response.discard();
      return false;
    }
    const body = JSON.parse((await response.readBody()).toString("utf8")) as { ok?: unknown } | null;
    return body?.ok === true;
  } catch {
    return false;
  }
}

/** Supervises the runtime gateway process: start, health, crash restarts with backoff, stop, restart. */
export function createSupervisor(options: SupervisorOptions): Supervisor {
  return new RuntimeSupervisor(options);
}
