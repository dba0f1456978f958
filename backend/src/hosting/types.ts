/**
 * The hosting-platform driver interface: one shape for the `local`, `railway`, `docker` and `kubernetes`
 * drivers, chosen by `HOSTING_PROVIDER`. A "service" is one agent's runtime: the
 * wrapper (`wrapper/`) in front of the agent runtime gateway. Drivers never see platform secrets: the
 * environment they are given is exactly what the agent may hold (see `agentEnvironment`).
 */

export type HostingProviderName = "local" | "railway" | "docker" | "kubernetes";

/** Deployment state mapped from each platform's own vocabulary. */
export type ServiceStatus = "running" | "deploying" | "crashed" | "failed" | "stopped" | "unknown";

export interface HostedService {
  /** The platform's id of the service (persisted on the agent as `runtimeServiceId`). */
  id: string;
  /** Stable name derived from the agent id (`agentServiceName`), used to find a service without its id. */
  name: string;
  /** Base URL of the agent's wrapper (what the probe, proxy and chat use), or null while it has none. */
  url: string | null;
  image: string | null;
  status: ServiceStatus;
  /** Free-form details the platform reports (deployment id, container id, ports, …). */
  metadata: Record<string, unknown>;
}

export interface CreateServiceInput {
  agentId: string;
  /** The agent's owner (kubernetes labels its objects with it). */
  userId?: string;
  name: string;
  image: string;
  env: Record<string, string>;
}

export interface ServiceStats {
  /** CPU percent, or null when the platform does not report it (never made up). */
  cpuPercent: number | null;
  memoryBytes: number | null;
  memoryLimitBytes: number | null;
}

export interface ServiceLogLine {
  ts: string;
  stream: "stdout" | "stderr";
  line: string;
}

export interface HostingPlatform {
  readonly provider: HostingProviderName;
  /** Reachability and credentials of the platform API; throws HostingError when unusable. */
  ping(): Promise<void>;
  list(): Promise<HostedService[]>;
  /**
   * By persisted id when given, else by listing and matching `name`; null when absent. `agentId`, when
   * given, lets a driver whose names cannot collide (kubernetes) find the agent's own service exactly.
   */
  find(ref: { id?: string | null; name: string; agentId?: string }): Promise<HostedService | null>;
  create(input: CreateServiceInput): Promise<HostedService>;
  /** Replaces the service's whole environment with `env`. */
  setEnv(id: string, env: Record<string, string>): Promise<void>;
  setImage(id: string, image: string): Promise<void>;
  /** (Re)deploys with the current image and environment; the service ends up starting or running. */
  deploy(id: string): Promise<HostedService>;
  restart(id: string): Promise<void>;
  stop(id: string): Promise<void>;
  remove(id: string): Promise<void>;
  stats(id: string): Promise<ServiceStats>;
  logs(id: string, lines: number): Promise<ServiceLogLine[]>;
  /** Releases what the driver holds (see each driver's docs for what happens to running agents). */
  close(): Promise<void>;
  /**
   * Drivers whose agents live with the platform (local): starts every agent meant to be running whose
   * process is gone, e.g. after the platform restarted; returns the ids it started. Called at backend start.
   */
  restoreRunning?(): Promise<string[]>;
  /**
   * Drivers that run agents on a runtime installed on this machine (local): installs it unless it is there,
   * telling each step to `onStep` ("installing the agent runtime 2026.4.11…"). Provisioning calls it before
   * a deploy so the wait is a step the dashboard shows; a deploy installs it too when it is missing.
   */
  installRuntime?(onStep: (step: string) => void, signal?: AbortSignal): Promise<void>;
}

/**
 * A hosting failure with a reason the routes map: `not_configured` (credentials or ids missing → 503),
 * `not_found` (no such service), `platform` (the platform refused or failed → 500).
 */
export class HostingError extends Error {
  constructor(
    readonly reason: "not_configured" | "not_found" | "platform",
    message: string,
  ) {
    super(message);
    this.name = "HostingError";
  }
}

/** The service name of an agent on every platform. */
export function agentServiceName(agentId: string): string {
  return `agent-${agentId
    .replace(/^agt_/, "")
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, "-")}`.slice(0, 60);
}

export interface AgentEnvironmentInput {
  gatewayToken: string;
  /** The wrapper's admin password (`wrapperAdminPassword` of the data encryption key, agent id and token). */
  adminPassword: string;
  aiProvider: string;
  /** The model the agent's runtime asks for (PLATFORM_DEFAULT_MODEL: the AI proxy answers AI_DEFAULT_MODEL): the wrapper writes it into OpenClaw's config. */
  model: string;
  agentType: string;
  plan: string;
  agentId: string;
  backendUrl: string;
}

/** The variables of `agentEnvironment` that are secrets (kubernetes mounts them as files, never env). */
export const AGENT_SECRET_VARIABLES = ["OPENCLAW_GATEWAY_TOKEN", "WRAPPER_ADMIN_PASSWORD"] as const;

/**
 * Everything an agent's service gets in its environment: its own gateway token (it reaches the AI provider
 * through the backend with it), the wrapper's admin password (a secret of its own, derived by the platform,
 * so the platform can manage the wrapper while the token alone opens nothing of the admin API), the AI
 * provider name and model, agent type, plan, and the backend URL for the AI proxy and the classify hook.
 * Nothing else.
 */
export function agentEnvironment(input: AgentEnvironmentInput): Record<string, string> {
  const backend = input.backendUrl.replace(/\/$/, "");
  return {
    OPENCLAW_GATEWAY_TOKEN: input.gatewayToken,
    WRAPPER_ADMIN_PASSWORD: input.adminPassword,
    AI_PROVIDER: input.aiProvider,
    AGENT_MODEL: input.model,
    AGENT_TYPE: input.agentType,
    AGENT_PLAN: input.plan,
    AGENT_ID: input.agentId,
    PLATFORM_BACKEND_URL: input.backendUrl,
    PLATFORM_CLASSIFY_URL: `${backend}/api/hooks/classify`,
  };
}
