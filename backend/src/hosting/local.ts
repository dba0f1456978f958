/**
 * The `local` hosting driver (default): an agent is a wrapper process (`wrapper/`) on this machine running the
 * managed OpenClaw (local-runtime.ts) or LOCAL_RUNTIME_COMMAND. Each agent has its own directory
 * (service.json, state/, home/, wrapper.log: local-store.ts) and its own wrapper and runtime ports, kept (a
 * port found taken at a start is replaced: `deploy` returns the new URL). The wrapper is spawned detached as
 * the leader of its process group with ONLY the agent's environment and a few basics — never the platform's
 * process.env, which holds its secrets. `restoreRunning()` at backend start brings back agents meant to run;
 * `close()` stops them but keeps them meant to run; a wrapper that dies on its own is `crashed`, left to the
 * watchdog. As root each agent runs as its own OS user (local-users.ts) owning only `state/` and `home/`;
 * `<agentId>/`, service.json and wrapper.log stay the platform's, so an agent can neither read its record
 * nor swap it or its log for a link. Not as root, agents share the platform's user: development only.
 */
import { chmod, lchown, mkdir, stat } from "node:fs/promises";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { type AgentAnswer, type Clock, freePort, isPortTaken, requestAgent, systemClock } from "@svc/common";
import { pinImageVersion } from "@svc/common/runtime-version";
import type { Logger } from "pino";
import { nodePackageFor } from "../runtime-install/index";
import { spawnWrapper, stopProcessGroup, tailLogFile, wrapperEnvironment } from "./local-process";
import {
  externalRuntimeVariables,
  installedOpenclaw,
  type LocalRuntimeSource,
  openclawRuntimeVariables,
} from "./local-runtime";
import { type LocalServiceRecord, LocalServiceStore } from "./local-store";
import {
  type AgentUser,
  agentUserName,
  closedToOthers,
  ensureAgentUser,
  handOverTree,
  missingUserTools,
} from "./local-users";
import { groupUsage, isProcessAlive } from "./proc";
import { assertAgentEnv } from "./secret-guard";
import {
  type CreateServiceInput,
  type HostedService,
  HostingError,
  type HostingPlatform,
  type ServiceLogLine,
  type ServiceStats,
  type ServiceStatus,
} from "./types";

export interface LocalHostingOptions {
  /** LOCAL_AGENTS_DIR; resolved against the current directory. */
  agentsDir: string;
  /**
   * LOCAL_RUNTIME_COMMAND: an operator's runtime command, the wrapper's RUNTIME_COMMAND as given (`{port}` =
   * the agent's runtime port) with RUNTIME_KIND=external. Unset: `managedRuntime`.
   */
  runtimeCommand?: string;
  /** The managed OpenClaw: RUNTIME_VERSION under RUNTIMES_DIR (`env`: npm's environment for an install). */
  managedRuntime?: { version: string; runtimesDir: string; env?: NodeJS.ProcessEnv };
  /** What wrappers inherit of the platform's environment (PATH, locale, time zone; default none). */
  inheritedEnv?: Record<string, string>;
  /** Extra wrapper settings (LOG_LEVEL, RUNTIME_HEALTH_POLL_MS, ...); checked like the agent environment. */
  wrapperEnv?: Record<string, string>;
  /** The platform's secret values, refused in any environment given to an agent. */
  secretValues?: readonly string[];
  /** SIGTERM → SIGKILL grace for the wrapper's process group (default 15 s; the wrapper's own is 10 s). */
  stopTimeoutMs?: number;
  /** Stamps service records (default: the system clock). */
  clock?: Clock;
  /** Interval between the two /proc samples of `stats` (default 250 ms). */
  statsSampleMs?: number;
  /** Timeout of calls to a wrapper's API (default 3 s). */
  requestTimeoutMs?: number;
  /** The wrapper package directory (default: `wrapper/` of this repository). */
  wrapperDir?: string;
  /**
   * Run each agent as its own OS user. `true` requires it (root, reachable code); the default tries it when
   * the platform runs as root and falls back, with a warning, to the shared user when the code is closed.
   */
  isolateAgents?: boolean;
  logger?: Logger;
}

const DEFAULT_WRAPPER_DIR = fileURLToPath(new URL("../../../wrapper/", import.meta.url));
const WRAPPER_STATES: Record<string, ServiceStatus> = {
  running: "running",
  starting: "deploying",
  crashed: "crashed",
  stopped: "stopped",
};

export class LocalHostingPlatform implements HostingPlatform {
  readonly provider = "local" as const;
  private readonly store: LocalServiceStore;
  private readonly wrapperDir: string;
  private readonly stopTimeoutMs: number;
  private readonly statsSampleMs: number;
  private readonly requestTimeoutMs: number;
  /** Agents whose processes this instance started or adopted: what `close()` stops. */
  private readonly owned = new Set<string>();
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Whether agents run as their own OS users: see `checkIsolation` for the fallback when root cannot. */
  private isolate: boolean;
  private readonly isolationRequired: boolean;
  private isolationChecked = false;
  private runtimeReachChecked = false;
  private readonly runtime: LocalRuntimeSource;

  constructor(private readonly options: LocalHostingOptions) {
    this.store = new LocalServiceStore(resolve(options.agentsDir), options.clock);
    this.wrapperDir = options.wrapperDir ?? DEFAULT_WRAPPER_DIR;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 15_000;
    this.statsSampleMs = options.statsSampleMs ?? 250;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 3_000;
    assertAgentEnv(options.wrapperEnv ?? {}, options.secretValues ?? []);
    this.isolate = options.isolateAgents ?? process.getuid?.() === 0;
    this.isolationRequired = options.isolateAgents === true;
    if (this.isolate && process.getuid?.() !== 0)
      throw new HostingError("not_configured", "running local agents as their own OS users needs root");
    if (options.runtimeCommand !== undefined) {
      this.runtime = { kind: "external", command: options.runtimeCommand };
      options.logger?.warn(
        { command: options.runtimeCommand },
        "LOCAL_RUNTIME_COMMAND is set: local agents run it as given (RUNTIME_KIND=external), and the platform cannot verify its permission plugin",
      );
    } else if (options.managedRuntime) {
      this.runtime = { kind: "openclaw", ...options.managedRuntime };
    } else {
      throw new HostingError(
        "not_configured",
        "the local driver needs the managed runtime (RUNTIME_VERSION, RUNTIMES_DIR) or LOCAL_RUNTIME_COMMAND",
      );
    }
  }

  async ping(): Promise<void> {
    if (this.runtime.kind === "external" && !this.runtime.command.trim())
      throw new HostingError("not_configured", "LOCAL_RUNTIME_COMMAND is empty");
    if (this.runtime.kind === "openclaw") {
      try {
        nodePackageFor();
      } catch (err) {
        throw new HostingError("not_configured", (err as Error).message);
      }
      if (/\s/.test(this.runtime.runtimesDir))
        throw new HostingError(
          "not_configured",
          `RUNTIMES_DIR must not contain spaces or other whitespace ("${this.runtime.runtimesDir}"): agents' runtime commands are split on whitespace`,
        );
    }
    try {
      await stat(`${this.wrapperDir}/src/server.ts`);
    } catch {
      throw new HostingError("not_configured", `the wrapper is missing at ${this.wrapperDir}`);
    }
    if (this.isolate) await this.checkIsolation();
    else await mkdir(this.store.root, { recursive: true, mode: 0o700 });
  }

  async list(): Promise<HostedService[]> {
    const records = await this.store.all();
    return Promise.all(records.map((record) => this.describe(record)));
  }

  async find(ref: { id?: string | null; name: string }): Promise<HostedService | null> {
    if (ref.id) {
      const record = await this.store.read(ref.id);
      if (record) return this.describe(record);
    }
    const record = (await this.store.all()).find((r) => r.name === ref.name);
    return record ? this.describe(record) : null;
  }

  /** Creates the agent's service and starts it; an existing one is reconfigured and redeployed. */
  async create(input: CreateServiceInput): Promise<HostedService> {
    assertAgentEnv(input.env, this.options.secretValues ?? []);
    this.store.dir(input.agentId);
    // No service is recorded for an agent whose runtime cannot be had (installed now when missing).
    await this.runtimeVariables();
    return this.withLock(input.agentId, async () => {
      const existing = await this.store.read(input.agentId);
      const now = (this.options.clock ?? systemClock).now().toISOString();
      const record: LocalServiceRecord = existing
        ? { ...existing, name: input.name, image: input.image, env: { ...input.env } }
        : {
            agentId: input.agentId,
            name: input.name,
            image: input.image,
            env: { ...input.env },
            ...(await this.allocatePorts(input.agentId)),
            desired: "running",
            pid: null,
            pidStart: null,
            createdAt: now,
            updatedAt: now,
          };
      await this.stopProcess(record);
      await this.start(record);
      return this.describe(record);
    });
  }

  /** Replaces the stored environment; it reaches the agent at the next `deploy`. */
  async setEnv(id: string, env: Record<string, string>): Promise<void> {
    assertAgentEnv(env, this.options.secretValues ?? []);
    return this.withLock(id, async () => {
      const record = await this.store.require(id);
      await this.store.write({ ...record, env: { ...env } });
    });
  }

  setImage(id: string, image: string): Promise<void> {
    return this.withLock(id, async () => {
      const record = await this.store.require(id);
      await this.store.write({ ...record, image });
    });
  }

  deploy(id: string): Promise<HostedService> {
    return this.withLock(id, async () => {
      const record = await this.store.require(id);
      await this.stopProcess(record);
      await this.start(record);
      return this.describe(record);
    });
  }

  restart(id: string): Promise<void> {
    return this.withLock(id, async () => {
      const record = await this.store.require(id);
      if (await this.alive(record)) {
        // The wrapper answers once the runtime is stopped and started again: its stop alone may take its
        // own grace (RUNTIME_STOP_TIMEOUT_MS, 10 s), so this call gets more than the usual deadline.
        const res = await this.callWrapper(
          record,
          "POST",
          "/api/gateway/restart",
          undefined,
          RESTART_CALL_TIMEOUT_MS,
        ).catch(() => null);
        if (res && res.status >= 200 && res.status < 300) return;
      }
      // The wrapper is down, or up but unable to restart its runtime: start it over.
      await this.stopProcess(record);
      await this.start(record);
    });
  }

  stop(id: string): Promise<void> {
    return this.withLock(id, async () => {
      const record = await this.store.require(id);
      record.desired = "stopped";
      await this.stopProcess(record);
    });
  }

  remove(id: string): Promise<void> {
    return this.withLock(id, async () => {
      const record = await this.store.require(id);
      await this.stopProcess(record);
      this.owned.delete(id);
      await this.store.delete(id);
    });
  }

  /** Installs the managed runtime unless it is there (see HostingPlatform); nothing for an external one. */
  async installRuntime(onStep: (step: string) => void, signal?: AbortSignal): Promise<void> {
    if (this.runtime.kind !== "openclaw") return;
    await installedOpenclaw(this.runtime, { logger: this.options.logger, onStep, signal });
  }

  async stats(id: string): Promise<ServiceStats> {
    const record = await this.store.require(id);
    const usage =
      record.pid && (await this.alive(record)) ? await groupUsage(record.pid, this.statsSampleMs) : null;
    return {
      cpuPercent: usage?.cpuPercent ?? null,
      memoryBytes: usage?.rssBytes ?? null,
      memoryLimitBytes: null,
    };
  }

  async logs(id: string, lines: number): Promise<ServiceLogLine[]> {
    const record = await this.store.require(id);
    const count = Math.max(1, Math.min(Math.floor(lines), 500));
    if (await this.alive(record)) {
      const res = await this.callWrapper(
        record,
        "GET",
        `/api/logs?lines=${count}`,
        LOG_ANSWER_MAX_BYTES,
      ).catch(() => null);
      if (res && res.status >= 200 && res.status < 300) {
        const body = parseJsonObject(res.text) as { logs?: ServiceLogLine[] } | null;
        if (Array.isArray(body?.logs)) return body.logs;
      }
    }
    return tailLogFile(this.store.logPath(record.agentId), count);
  }

  /** Starts every agent meant to be running whose wrapper is not alive; returns the ids it started. */
  async restoreRunning(): Promise<string[]> {
    const restored: string[] = [];
    for (const { agentId } of await this.store.all()) {
      await this.withLock(agentId, async () => {
        const record = await this.store.read(agentId);
        if (record?.desired !== "running") return;
        if (await this.alive(record)) {
          this.owned.add(agentId);
          return;
        }
        await this.stopProcess(record);
        await this.start(record);
        restored.push(agentId);
      }).catch((err: unknown) => this.options.logger?.error({ err, agentId }, "local agent restore failed"));
    }
    return restored;
  }

  /** Stops the agents this instance started or adopted, keeping their desired state (see the file's doc). */
  async close(): Promise<void> {
    await Promise.all(
      [...this.owned].map((agentId) =>
        this.withLock(agentId, async () => {
          const record = await this.store.read(agentId);
          if (record) await this.stopProcess(record);
        }).catch(() => undefined),
      ),
    );
    this.owned.clear();
  }

  private withLock<T>(agentId: string, operation: () => Promise<T>): Promise<T> {
    const previous = this.locks.get(agentId) ?? Promise.resolve();
    const result = previous.then(operation, operation);
    const settled = result.catch(() => undefined);
    this.locks.set(agentId, settled);
    void settled.then(() => {
      if (this.locks.get(agentId) === settled) this.locks.delete(agentId);
    });
    return result;
  }

  private url(record: LocalServiceRecord): string {
    return `http://127.0.0.1:${record.wrapperPort}`;
  }

  private alive(record: LocalServiceRecord): Promise<boolean> {
    return record.pid ? isProcessAlive(record.pid, record.pidStart) : Promise.resolve(false);
  }

  /**
   * The wrapper's API, through the one agent client, with its admin password, sent only once the wrapper at
   * the agent's port proved it holds it (another agent may have taken the port of a wrapper that stopped).
   * A wrapper started without one has an open admin API: it is called with no secret.
   */
  private callWrapper(
    record: LocalServiceRecord,
    method: "GET" | "POST",
    path: string,
    maxResponseBytes?: number,
    timeoutMs = this.requestTimeoutMs,
  ): Promise<AgentAnswer> {
    const password = record.env.WRAPPER_ADMIN_PASSWORD || undefined;
    return requestAgent(this.url(record), {
      method,
      path,
      token: password ?? null,
      identityKey: password,
      timeoutMs,
      maxResponseBytes,
      subject: "the wrapper",
    });
  }

  private async describe(record: LocalServiceRecord): Promise<HostedService> {
    const alive = await this.alive(record);
    let status: ServiceStatus;
    let wrapper: Record<string, unknown> | null = null;
    if (!alive) {
      status = record.desired === "running" ? "crashed" : "stopped";
    } else {
      wrapper = await requestAgent(this.url(record), {
        method: "GET",
        path: "/api/status",
        token: null,
        timeoutMs: this.requestTimeoutMs,
        subject: "the wrapper",
      })
        .then((res) => (res.status >= 200 && res.status < 300 ? parseJsonObject(res.text) : null))
        .catch(() => null);
      // A wrapper that does not answer yet is still starting.
      status = WRAPPER_STATES[String(wrapper?.state)] ?? "deploying";
    }
    return {
      id: record.agentId,
      name: record.name,
      url: this.url(record),
      // The managed runtime's version is what runs, whatever the record's image tag says.
      image:
        this.runtime.kind === "openclaw" ? pinImageVersion(record.image, this.runtime.version) : record.image,
      status,
      metadata: {
        agentId: record.agentId,
        runtimeKind: this.runtime.kind,
        runtimeVersion: this.runtime.kind === "openclaw" ? this.runtime.version : null,
        desired: record.desired,
        pid: alive ? record.pid : null,
        wrapperPort: record.wrapperPort,
        runtimePort: record.runtimePort,
        osUser: record.osUser ?? null,
        gatewayState: typeof wrapper?.state === "string" ? wrapper.state : null,
        uptime: typeof wrapper?.uptime === "number" ? wrapper.uptime : null,
        createdAt: record.createdAt,
      },
    };
  }

  /** Ports no other agent holds and nothing listens on. */
  private async allocatePorts(agentId: string): Promise<{ wrapperPort: number; runtimePort: number }> {
    const reserved = new Set<number>();
    for (const other of await this.store.all()) {
      if (other.agentId === agentId) continue;
      reserved.add(other.wrapperPort);
      reserved.add(other.runtimePort);
    }
    const pick = async (): Promise<number> => {
      for (;;) {
        const port = await freePort();
        if (!reserved.has(port)) {
          reserved.add(port);
          return port;
        }
      }
    };
    return { wrapperPort: await pick(), runtimePort: await pick() };
  }

  private async start(record: LocalServiceRecord): Promise<void> {
    if (
      (await isPortTaken(record.wrapperPort, "127.0.0.1")) ||
      (await isPortTaken(record.runtimePort, "127.0.0.1"))
    ) {
      Object.assign(record, await this.allocatePorts(record.agentId));
    }
    const stateDir = this.store.stateDir(record.agentId);
    await mkdir(stateDir, { recursive: true, mode: 0o700 });
    const runtime = await this.runtimeVariables();
    if (this.isolate) await this.checkIsolation();
    const user = this.isolate ? await this.isolateAgent(record) : undefined;
    const env = wrapperEnvironment({
      agentEnv: record.env,
      inherited: this.options.inheritedEnv ?? {},
      settings: this.options.wrapperEnv ?? {},
      home: user ? this.store.homeDir(record.agentId) : this.store.dir(record.agentId),
      stateDir,
      wrapperPort: record.wrapperPort,
      runtimePort: record.runtimePort,
      runtime,
    });
    const { pid, pidStart } = await spawnWrapper({
      wrapperDir: this.wrapperDir,
      env,
      logPath: this.store.logPath(record.agentId),
      user,
    });
    Object.assign(record, { pid, pidStart, desired: "running" });
    this.owned.add(record.agentId);
    await this.store.write(record);
    this.options.logger?.info(
      { agentId: record.agentId, pid, port: record.wrapperPort, user: record.osUser },
      "local agent started",
    );
  }

  /**
   * The wrapper's runtime variables: the managed runtime (installed now if it is missing; reachable by the
   * agents' own users, checked once) or the operator's command.
   */
  private async runtimeVariables(): Promise<Record<string, string>> {
    if (this.runtime.kind === "external") return externalRuntimeVariables(this.runtime.command);
    const installed = await installedOpenclaw(this.runtime, { logger: this.options.logger });
    if (this.isolate && !this.runtimeReachChecked) {
      await this.checkIsolation();
      await this.checkReach([
        ["the agent runtime's node", installed.node, 0o001],
        ["the agent runtime", installed.entry, 0o004],
      ]);
      this.runtimeReachChecked = true;
    }
    return openclawRuntimeVariables(installed);
  }

  /**
   * What running agents as their own users needs, checked once: useradd, and the agents directory, the
   * wrapper's code and node all reachable by users other than the platform's.
   */
  private async checkIsolation(): Promise<void> {
    if (this.isolationChecked) return;
    await mkdir(this.store.root, { recursive: true, mode: 0o711 });
    await chmod(this.store.root, 0o711);
    const missing = await missingUserTools();
    if (missing)
      throw new HostingError(
        "not_configured",
        `local agents run as their own OS users when the platform runs as root, but ${missing} (Debian: apt-get install passwd); or use HOSTING_PROVIDER=docker`,
      );
    await this.checkReach([
      ["LOCAL_AGENTS_DIR", this.store.root, 0],
      ["the wrapper", `${this.wrapperDir}/src/server.ts`, 0o004],
      ["node", process.execPath, 0o001],
    ]);
    this.isolationChecked = true;
  }

  /**
   * Whether users other than the platform's can reach each path; when one cannot: an error if isolation is
   * required, else agents share the platform's user from now on (said loudly).
   */
  private async checkReach(needed: Array<[string, string, number]>): Promise<void> {
    for (const [what, path, bits] of needed) {
      const closed = await closedToOthers(path, bits);
      if (!closed) continue;
      const problem = `local agents run as their own OS users, who cannot reach ${what} (${path}): ${closed} is closed to others (chmod o+x a directory, o+r a file, or move it)`;
      if (this.isolationRequired) throw new HostingError("not_configured", problem);
      // A checkout under a closed directory (a mode-700 home, a mktemp dir) still gets working agents, as
      // the platform's own user: the same single-user development mode as running without root, said loudly.
      this.options.logger?.warn(
        { reason: problem },
        "local agents are NOT isolated: they share the platform's user (single-user development only; use HOSTING_PROVIDER=docker otherwise)",
      );
      this.isolate = false;
      await chmod(this.store.root, 0o700);
      return;
    }
  }

  /**
   * The agent's user (created on its first start as root), and its directories set up for it: see the
   * file's doc. An agent that ran as the platform's user before gets what it made in `state/`.
   */
  private async isolateAgent(record: LocalServiceRecord): Promise<AgentUser> {
    await this.checkIsolation();
    const handOver = !record.osUser;
    const user = await ensureAgentUser(record.osUser ?? agentUserName(record.agentId));
    const dir = this.store.dir(record.agentId);
    await lchown(dir, process.getuid?.() ?? 0, user.gid);
    await chmod(dir, 0o710);
    for (const own of [this.store.stateDir(record.agentId), this.store.homeDir(record.agentId)]) {
      await mkdir(own, { recursive: true, mode: 0o700 });
      if (handOver) await handOverTree(own, user);
      else await lchown(own, user.uid, user.gid);
      await chmod(own, 0o700);
    }
    record.osUser = user.name;
    return user;
  }

  /** Stops the wrapper's process group (if any is left) and records the process as gone. */
  private async stopProcess(record: LocalServiceRecord): Promise<void> {
    // A live wrapper, or a runtime left over in its group after the wrapper died; never the group of another
    // process that got the wrapper's pid since.
    const pid = record.pid;
    const reused = pid !== null && (await isProcessAlive(pid)) && !(await this.alive(record));
    if (pid && !reused && (await stopProcessGroup(pid, this.stopTimeoutMs)))
      this.options.logger?.warn(
        { agentId: record.agentId, pid: record.pid },
        "local agent ignored SIGTERM; killed",
      );
    record.pid = null;
    record.pidStart = null;
    await this.store.write(record);
  }
}

export function createLocalHostingPlatform(options: LocalHostingOptions): LocalHostingPlatform {
  return new LocalHostingPlatform(options);
}

/** A restart through the wrapper: its runtime's stop grace (10 s) and a new spawn. */
const RESTART_CALL_TIMEOUT_MS = 20_000;

/** Room for the wrapper's log lines (more than an ordinary agent answer). */
const LOG_ANSWER_MAX_BYTES = 8 * 1024 * 1024;

function parseJsonObject(text: string): Record<string, unknown> | null {
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === "object" && value !== null ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}
