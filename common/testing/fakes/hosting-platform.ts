/**
 * A hosting platform double: the operations of the platform interface the backend drives (ping, list,
 * find, create, setEnv, setImage, deploy, restart, stop, remove, stats, logs), whose services are real
 * loopback agents — instances of the one fake agent runtime (agent-runtime.mjs) with their wrapper routes.
 * It records every call and can be told to fail a call, to be unconfigured, or to keep its agents unhealthy.
 * The types mirror the backend's `hosting/types.ts` structurally (common does not import the backend); the
 * backend binds its `HostingError` in `backend/src/runtime/testing/fake-platform.ts`.
 */
import { type FakeAgentRuntime, startFakeAgentRuntime } from "./agent-runtime.mjs";

export type PlatformCall = { op: string; id?: string; [field: string]: unknown };

export interface FakeHostedService {
  id: string;
  name: string;
  url: string | null;
  image: string | null;
  status: "running" | "deploying" | "crashed" | "failed" | "stopped" | "unknown";
  metadata: Record<string, unknown>;
}

export interface FakeServiceStats {
  cpuPercent: number | null;
  memoryBytes: number | null;
  memoryLimitBytes: number | null;
}

export type HostingErrorFactory = (reason: "not_configured" | "not_found", message: string) => Error;

/** One fake agent: the one fake runtime, answering its wrapper's routes too. */
export type FakeAgent = FakeAgentRuntime;

/** Starts a fake agent as the platform's services run them (Bearer routes open until `env` names a token). */
export function startFakeAgent(): Promise<FakeAgent> {
  return startFakeAgentRuntime({
    wrapper: true,
    openWithoutToken: true,
    memories: 3,
    streamChunks: 3,
    streamIntervalMs: 20,
  });
}

export interface FakeService {
  service: FakeHostedService;
  agent: FakeAgent;
  image: string;
}

/** A hosting platform double (see the file comment). */
export class FakeHostingPlatform {
  readonly provider = "railway" as const;
  readonly services = new Map<string, FakeService>();
  readonly calls: PlatformCall[] = [];
  /** Calls that throw: op → error. */
  readonly failures = new Map<string, Error>();
  /** Every call throws HostingError `not_configured` (missing credentials). */
  notConfigured = false;
  /** New services' agents start unhealthy (never pass waitForHealthy). */
  unhealthyAgents = false;
  /** What `stats` reports. */
  statsValue: FakeServiceStats = { cpuPercent: 12.5, memoryBytes: 104_857_600, memoryLimitBytes: null };
  private sequence = 0;

  /** `hostingError` builds the error the product's platform drivers throw, by reason. */
  constructor(private readonly hostingError: HostingErrorFactory) {}

  private enter(op: string, fields: Omit<PlatformCall, "op"> = {}): void {
    this.calls.push({ op, ...fields });
    if (this.notConfigured) {
      throw this.hostingError(
        "not_configured",
        "the hosting platform is not configured (HOSTING_API_KEY is missing)",
      );
    }
    const failure = this.failures.get(op);
    if (failure) throw failure;
  }

  private get(id: string): FakeService {
    const found = this.services.get(id);
    if (!found) throw this.hostingError("not_found", `no service ${id}`);
    return found;
  }

  private view(entry: FakeService): FakeHostedService {
    return {
      ...entry.service,
      image: entry.image,
      status: entry.agent.running ? "running" : "stopped",
      url: entry.agent.url,
    };
  }

  /** Adds a service directly (an agent provisioned before the test). */
  async seed(
    name: string,
    options: { image?: string; env?: Record<string, string> } = {},
  ): Promise<FakeService> {
    const agent = await startFakeAgent();
    agent.env = options.env ?? {};
    const id = `svc_${++this.sequence}`;
    const entry: FakeService = {
      service: { id, name, url: agent.url, image: options.image ?? null, status: "running", metadata: {} },
      agent,
      image: options.image ?? "ghcr.io/openclaw/openclaw:2026.4.11",
    };
    this.services.set(id, entry);
    return entry;
  }

  async ping(): Promise<void> {
    this.enter("ping");
  }
  async list(): Promise<FakeHostedService[]> {
    this.enter("list");
    return [...this.services.values()].map((entry) => this.view(entry));
  }
  async find(ref: { id?: string | null; name: string }): Promise<FakeHostedService | null> {
    this.enter("find", { id: ref.id ?? undefined, name: ref.name });
    if (ref.id && this.services.has(ref.id)) return this.view(this.get(ref.id));
    for (const entry of this.services.values()) if (entry.service.name === ref.name) return this.view(entry);
    return null;
  }
  async create(input: {
    name: string;
    image: string;
    env: Record<string, string>;
  }): Promise<FakeHostedService> {
    this.enter("create", { name: input.name, image: input.image, env: input.env });
    const entry = await this.seed(input.name, { image: input.image, env: input.env });
    entry.agent.running = false;
    return this.view(entry);
  }
  async setEnv(id: string, env: Record<string, string>): Promise<void> {
    this.enter("setEnv", { id, env });
    this.get(id).agent.env = { ...env };
  }
  async setImage(id: string, image: string): Promise<void> {
    this.enter("setImage", { id, image });
    this.get(id).image = image;
  }
  async deploy(id: string): Promise<FakeHostedService> {
    this.enter("deploy", { id });
    const entry = this.get(id);
    entry.agent.running = true;
    entry.agent.healthy = !this.unhealthyAgents;
    return this.view(entry);
  }
  async restart(id: string): Promise<void> {
    this.enter("restart", { id });
    this.get(id).agent.running = true;
  }
  async stop(id: string): Promise<void> {
    this.enter("stop", { id });
    this.get(id).agent.running = false;
  }
  async remove(id: string): Promise<void> {
    this.enter("remove", { id });
    await this.get(id).agent.close();
    this.services.delete(id);
  }
  async stats(id: string): Promise<FakeServiceStats> {
    this.enter("stats", { id });
    this.get(id);
    return this.statsValue;
  }
  async logs(
    id: string,
    _lines: number,
  ): Promise<Array<{ ts: string; stream: "stdout" | "stderr"; line: string }>> {
    this.enter("logs", { id });
    this.get(id);
    return [];
  }
  async close(): Promise<void> {
    for (const entry of this.services.values()) await entry.agent.close();
    this.services.clear();
  }

  /** Calls of one kind, in order. */
  callsOf(op: string): PlatformCall[] {
    return this.calls.filter((call) => call.op === op);
  }
}
