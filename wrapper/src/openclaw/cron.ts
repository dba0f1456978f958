/**
 * The agent's scheduled jobs as the platform sees them (`GET /api/cron`, `PUT|DELETE /api/cron/:name`),
 * over OpenClaw's `cron.*` RPC — plus the heartbeat, which OpenClaw runs natively from its configuration
 * (`agents.defaults.heartbeat.every`, `0m` = off; `docs/gateway/heartbeat.md`) rather than as a cron job:
 * the job named `heartbeat` is that setting, listed beside the cron jobs.
 */
import { readFile } from "node:fs/promises";
import { isPlainObject, writeFileAtomic } from "../runtime/config-file";
import type { GatewayRpc } from "./rpc";
import type { OpenClawRuntime } from "./runtime";

export const HEARTBEAT_JOB = "heartbeat";

export interface AgentCronJob {
  id: string;
  name: string;
  enabled: boolean;
  /** `every` with its interval; OpenClaw's `cron` and `at` schedules have no `everyMs` (null). */
  schedule: { kind: string; everyMs: number | null };
  /** What the job sends the agent (null for the heartbeat, whose prompt is OpenClaw's). */
  message: string | null;
  lastRunAt: string | null;
  nextRunAt: string | null;
  lastStatus: string | null;
  lastError: string | null;
}

export interface CronJobInput {
  enabled: boolean;
  everyMs: number;
  message?: string;
}

interface OpenClawJob {
  id?: unknown;
  name?: unknown;
  enabled?: unknown;
  schedule?: { kind?: unknown; everyMs?: unknown } | null;
  payload?: { kind?: unknown; message?: unknown; text?: unknown } | null;
  state?: {
    lastRunAtMs?: unknown;
    nextRunAtMs?: unknown;
    lastRunStatus?: unknown;
    lastStatus?: unknown;
    lastError?: unknown;
  } | null;
}

const iso = (ms: unknown): string | null =>
  typeof ms === "number" && Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString() : null;
const text = (value: unknown): string | null => (typeof value === "string" && value ? value : null);

function fromOpenClaw(job: OpenClawJob): AgentCronJob | null {
  if (typeof job.id !== "string" || typeof job.name !== "string") return null;
  const kind = typeof job.schedule?.kind === "string" ? job.schedule.kind : "unknown";
  const everyMs = job.schedule?.everyMs;
  return {
    id: job.id,
    name: job.name,
    enabled: job.enabled === true,
    schedule: {
      kind,
      everyMs: kind === "every" && typeof everyMs === "number" && everyMs > 0 ? everyMs : null,
    },
    message: text(job.payload?.message) ?? text(job.payload?.text),
    lastRunAt: iso(job.state?.lastRunAtMs),
    nextRunAt: iso(job.state?.nextRunAtMs),
    lastStatus: text(job.state?.lastRunStatus) ?? text(job.state?.lastStatus),
    lastError: text(job.state?.lastError),
  };
}

async function openClawJobs(rpc: GatewayRpc): Promise<AgentCronJob[]> {
  const answer = await rpc.call<{ jobs?: unknown }>("cron.list", { includeDisabled: true, limit: 200 });
  if (!Array.isArray(answer?.jobs)) return [];
  return answer.jobs.map((job) => fromOpenClaw(job as OpenClawJob)).filter((job) => job !== null);
}

/** OpenClaw's `every` duration for `ms`: whole minutes when it is, else seconds (rounded up). */
export function heartbeatEvery(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000}m`;
  return `${Math.ceil(ms / 1000)}s`;
}

export interface HeartbeatStoreOptions {
  rpc: GatewayRpc;
  runtime: OpenClawRuntime;
  /** Where the interval of a disabled heartbeat is kept (OpenClaw's `0m` forgets it). */
  statePath: string;
}

/** The heartbeat: OpenClaw's native setting, read from its `health` and written to its configuration. */
export class Heartbeat {
  constructor(private readonly options: HeartbeatStoreOptions) {}

  async read(): Promise<AgentCronJob> {
    const health = await this.options.rpc.call<{ agents?: unknown; defaultAgentId?: unknown }>("health", {});
    const agents = Array.isArray(health?.agents) ? (health.agents as Array<Record<string, unknown>>) : [];
    const agent = agents.find((a) => a.agentId === health?.defaultAgentId) ?? agents[0];
    const setting = isPlainObject(agent?.heartbeat) ? agent.heartbeat : {};
    const runningEveryMs =
      typeof setting.everyMs === "number" && setting.everyMs > 0 ? setting.everyMs : null;
    const enabled = setting.enabled === true && runningEveryMs !== null;
    const everyMs = runningEveryMs ?? (await this.storedEveryMs());
    const last = await this.options.rpc.call<{ ts?: unknown } | null>("last-heartbeat", {}).catch(() => null);
    const lastMs = typeof last?.ts === "number" ? last.ts : null;
    return {
      id: HEARTBEAT_JOB,
      name: HEARTBEAT_JOB,
      enabled,
      schedule: { kind: "every", everyMs },
      message: null,
      lastRunAt: iso(lastMs),
      nextRunAt: enabled && lastMs !== null && everyMs !== null ? iso(lastMs + everyMs) : null,
      lastStatus: null,
      lastError: null,
    };
  }

  async write(input: { enabled: boolean; everyMs: number }): Promise<AgentCronJob> {
    await writeFileAtomic(this.options.statePath, `${JSON.stringify({ everyMs: input.everyMs })}\n`);
    await this.options.runtime.updateConfig((config) => {
      setHeartbeatEvery(config, input.enabled ? heartbeatEvery(input.everyMs) : "0m");
    });
    return this.read();
  }

  /** Turns the heartbeat off; false when it already was. */
  async remove(): Promise<boolean> {
    const current = await this.read();
    if (!current.enabled) return false;
    await this.options.runtime.updateConfig((config) => setHeartbeatEvery(config, "0m"));
    return true;
  }

  private async storedEveryMs(): Promise<number | null> {
    try {
      const stored = JSON.parse(await readFile(this.options.statePath, "utf8")) as { everyMs?: unknown };
      return typeof stored.everyMs === "number" && stored.everyMs > 0 ? stored.everyMs : null;
    } catch {
      return null;
    }
  }
}

function setHeartbeatEvery(config: Record<string, unknown>, every: string): void {
  const agents = isPlainObject(config.agents) ? config.agents : {};
  const defaults = isPlainObject(agents.defaults) ? agents.defaults : {};
  const heartbeat = isPlainObject(defaults.heartbeat) ? defaults.heartbeat : {};
  config.agents = { ...agents, defaults: { ...defaults, heartbeat: { ...heartbeat, every } } };
}

/** Cron jobs over OpenClaw's RPC, the heartbeat beside them. */
export class CronJobs {
  constructor(
    private readonly rpc: GatewayRpc,
    private readonly heartbeat: Heartbeat,
  ) {}

  async list(): Promise<AgentCronJob[]> {
    const [heartbeat, jobs] = await Promise.all([this.heartbeat.read(), openClawJobs(this.rpc)]);
    return [heartbeat, ...jobs.filter((job) => job.name !== HEARTBEAT_JOB)];
  }

  /** Creates or replaces the job named `name` (a new job needs its `message`). */
  async put(name: string, input: CronJobInput): Promise<AgentCronJob> {
    if (name === HEARTBEAT_JOB) return this.heartbeat.write(input);
    const existing = (await openClawJobs(this.rpc)).find((job) => job.name === name);
    const schedule = { kind: "every", everyMs: input.everyMs };
    if (existing) {
      await this.rpc.call("cron.update", {
        id: existing.id,
        patch: {
          enabled: input.enabled,
          schedule,
          ...(input.message ? { payload: { kind: "agentTurn", message: input.message } } : {}),
        },
      });
    } else {
      if (!input.message) throw new CronInputError("message is required to create a job");
      await this.rpc.call("cron.add", {
        name,
        enabled: input.enabled,
        schedule,
        // Each run in its own session, started at once (not at the next heartbeat).
        sessionTarget: "isolated",
        wakeMode: "now",
        payload: { kind: "agentTurn", message: input.message },
      });
    }
    const saved = (await openClawJobs(this.rpc)).find((job) => job.name === name);
    if (!saved) throw new Error(`the runtime did not keep the job ${name}`);
    return saved;
  }

  /** Removes the job named `name`; false when there is none. */
  async remove(name: string): Promise<boolean> {
    if (name === HEARTBEAT_JOB) return this.heartbeat.remove();
    const existing = (await openClawJobs(this.rpc)).find((job) => job.name === name);
    if (!existing) return false;
    await this.rpc.call("cron.remove", { id: existing.id });
    return true;
  }
}

export class CronInputError extends Error {}
