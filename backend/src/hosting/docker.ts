/**
 * The `docker` hosting driver: one container per agent through the Docker Engine API (DOCKER_HOST). The
 * service id is the container name, which Docker accepts wherever it takes an id and which survives a
 * recreate; the label `svc.env-names` records the agent's variable names, so a recreate can tell them from
 * the image's own ENV. Environment and image cannot change in place: `setEnv` and `setImage` recreate the
 * container, the new one created before the old is removed, so a refused create leaves the agent as it was.
 * The wrapper's port 8080 is published on `publishHost` at a port Docker picks; restart policy
 * `unless-stopped`; `remove` deletes the container and its `<name>-data` volume.
 */

import type { DockerStatsSample } from "./docker-api";
import {
  DockerApi,
  DockerApiError,
  demultiplexLogs,
  dockerCpuPercent,
  dockerMemoryUsage,
  parseDockerHost,
} from "./docker-api";
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

export const AGENT_LABEL = "svc.agent-id";
export const NAME_LABEL = "svc.service-name";
export const ENV_NAMES_LABEL = "svc.env-names";
const WRAPPER_PORT = "8080/tcp";

export interface DockerHostingOptions {
  /** DOCKER_HOST: `unix:///var/run/docker.sock`, `tcp://host:2375`, `http(s)://host:port`. */
  dockerHost: string;
  secretValues?: readonly string[];
  /** Host address the wrapper port is published on, and the host of service URLs (default 127.0.0.1). */
  publishHost?: string;
  /** Per-call timeout of the API (default 30 s); image pulls get `pullTimeoutMs` (default 10 min). */
  requestTimeoutMs?: number;
  pullTimeoutMs?: number;
  /** Seconds Docker waits after SIGTERM before SIGKILL on stop and restart (default 10). */
  stopTimeoutSeconds?: number;
}

interface ContainerInspect {
  Id: string;
  Name: string;
  Created?: string;
  Config: { Image: string; Env?: string[] | null; Labels?: Record<string, string> | null };
  State: { Status: string; Running: boolean; ExitCode: number; OOMKilled?: boolean; StartedAt?: string };
  NetworkSettings?: { Ports?: Record<string, { HostIp: string; HostPort: string }[] | null> | null };
}

interface ContainerSummary {
  Id: string;
  Names: string[];
  Image: string;
  State: string;
  Status: string;
  Labels?: Record<string, string> | null;
  Ports?: { IP?: string; PrivatePort: number; PublicPort?: number; Type: string }[];
}

/** Docker's container state in the platform's vocabulary (under `unless-stopped`, a crash shows as restarting). */
function mapState(state: string, exitCode: number, oomKilled: boolean): ServiceStatus {
  switch (state) {
    case "running":
      return "running";
    case "restarting":
      return "deploying";
    case "created":
    case "paused":
    case "removing":
      return "stopped";
    case "exited":
      // 0, SIGTERM (143) and SIGKILL after the stop timeout (137) are how `docker stop` ends a container.
      return oomKilled || ![0, 137, 143].includes(exitCode) ? "crashed" : "stopped";
    case "dead":
      return "failed";
    default:
      return "unknown";
  }
}

/** An image reference with a tag or digest (`docker pull` of a bare name would fetch every tag). */
function pinnedReference(image: string): string {
  const lastSegment = image.slice(image.lastIndexOf("/") + 1);
  return lastSegment.includes(":") || lastSegment.includes("@") ? image : `${image}:latest`;
}

export class DockerHostingPlatform implements HostingPlatform {
  readonly provider = "docker" as const;
  private readonly api: DockerApi;
  private readonly publishHost: string;
  private readonly stopSeconds: number;
  private readonly pullTimeoutMs: number;

  constructor(private readonly options: DockerHostingOptions) {
    this.api = new DockerApi(
      parseDockerHost(options.dockerHost),
      options.dockerHost,
      options.requestTimeoutMs,
    );
    this.publishHost = options.publishHost ?? "127.0.0.1";
    this.stopSeconds = options.stopTimeoutSeconds ?? 10;
    this.pullTimeoutMs = options.pullTimeoutMs ?? 10 * 60_000;
  }

  async ping(): Promise<void> {
    await this.api.json("GET", "/_ping");
  }

  async list(): Promise<HostedService[]> {
    const containers = await this.api.json<ContainerSummary[]>("GET", "/containers/json", {
      query: { all: 1, filters: JSON.stringify({ label: [AGENT_LABEL] }) },
    });
    return containers.map((c) => {
      const name = (c.Names[0] ?? c.Id).replace(/^\//, "");
      const published = c.Ports?.find((p) => p.PrivatePort === 8080 && p.Type === "tcp" && p.PublicPort);
      return {
        id: name,
        name: c.Labels?.[NAME_LABEL] ?? name,
        url: published && c.State === "running" ? `http://${this.publishHost}:${published.PublicPort}` : null,
        image: c.Image,
        // The summary gives the exit code only in its text: "Exited (137) 2 minutes ago".
        status: mapState(c.State, Number(/Exited \((\d+)\)/.exec(c.Status)?.[1] ?? 0), false),
        metadata: {
          containerId: c.Id,
          agentId: c.Labels?.[AGENT_LABEL] ?? null,
          state: c.State,
          detail: c.Status,
        },
      };
    });
  }

  async find(ref: { id?: string | null; name: string }): Promise<HostedService | null> {
    for (const key of [ref.id, ref.name]) {
      if (!key) continue;
      const container = await this.inspectOrNull(key);
      if (container?.Config.Labels?.[AGENT_LABEL]) return this.describe(container);
    }
    return null;
  }

  /** Creates and starts the agent's container; an existing one of that name is recreated with this config. */
  async create(input: CreateServiceInput): Promise<HostedService> {
    assertAgentEnv(input.env, this.options.secretValues ?? []);
    const existing = await this.inspectOrNull(input.name);
    if (existing) {
      await this.recreate(existing, { image: input.image, env: input.env, agentId: input.agentId });
      await this.api.expect("POST", `/containers/${enc(input.name)}/start`, [304]);
    } else {
      await this.ensureImage(input.image);
      await this.createContainer(input.name, input.agentId, input.image, input.env);
      await this.api.expect("POST", `/containers/${enc(input.name)}/start`, [304]);
    }
    return this.describe(await this.inspect(input.name));
  }

  async setEnv(id: string, env: Record<string, string>): Promise<void> {
    assertAgentEnv(env, this.options.secretValues ?? []);
    const container = await this.inspect(id);
    await this.recreate(container, { env, restart: true });
  }

  async setImage(id: string, image: string): Promise<void> {
    const container = await this.inspect(id);
    await this.ensureImage(image);
    await this.recreate(container, { image, restart: true });
  }

  async deploy(id: string): Promise<HostedService> {
    const container = await this.inspect(id);
    if (container.State.Running) await this.restart(id);
    else await this.api.expect("POST", `/containers/${enc(id)}/start`, [304]);
    return this.describe(await this.inspect(id));
  }

  async restart(id: string): Promise<void> {
    await this.api.expect("POST", `/containers/${enc(id)}/restart`, [], { query: { t: this.stopSeconds } });
  }

  async stop(id: string): Promise<void> {
    await this.api.expect("POST", `/containers/${enc(id)}/stop`, [304], {
      query: { t: this.stopSeconds },
      timeoutMs: (this.stopSeconds + 30) * 1000,
    });
  }

  async remove(id: string): Promise<void> {
    const container = await this.inspect(id);
    const name = container.Name.replace(/^\//, "");
    await this.api.expect("DELETE", `/containers/${enc(id)}`, [], { query: { force: 1, v: 1 } });
    await this.api.expect("DELETE", `/volumes/${enc(`${name}-data`)}`, [404]);
  }

  async stats(id: string): Promise<ServiceStats> {
    const sample = await this.api.json<DockerStatsSample>("GET", `/containers/${enc(id)}/stats`, {
      query: { stream: "false" },
    });
    const limit = sample.memory_stats?.limit;
    return {
      cpuPercent: dockerCpuPercent(sample),
      memoryBytes: dockerMemoryUsage(sample),
      memoryLimitBytes: typeof limit === "number" && limit > 0 ? limit : null,
    };
  }

  async logs(id: string, lines: number): Promise<ServiceLogLine[]> {
    const tail = Math.max(1, Math.min(Math.floor(lines), 5_000));
    const res = await this.api.request("GET", `/containers/${enc(id)}/logs`, {
      query: { stdout: 1, stderr: 1, tail, timestamps: 1 },
    });
    if (res.status >= 400) throw new DockerApiError(res.status, `Docker logs of ${id}: HTTP ${res.status}`);
    return demultiplexLogs(res.body).slice(-tail);
  }

  async close(): Promise<void> {
    this.api.close();
  }

  private async inspect(id: string): Promise<ContainerInspect> {
    return this.api.json<ContainerInspect>("GET", `/containers/${enc(id)}/json`);
  }

  private async inspectOrNull(id: string): Promise<ContainerInspect | null> {
    try {
      return await this.inspect(id);
    } catch (err) {
      if (err instanceof DockerApiError && err.status === 404) return null;
      throw err;
    }
  }

  private describe(container: ContainerInspect): HostedService {
    const name = container.Name.replace(/^\//, "");
    const binding = container.NetworkSettings?.Ports?.[WRAPPER_PORT]?.find((b) => b.HostPort);
    return {
      id: name,
      name: container.Config.Labels?.[NAME_LABEL] ?? name,
      url: binding && container.State.Running ? `http://${this.publishHost}:${binding.HostPort}` : null,
      image: container.Config.Image,
      status: mapState(container.State.Status, container.State.ExitCode, container.State.OOMKilled === true),
      metadata: {
        containerId: container.Id,
        agentId: container.Config.Labels?.[AGENT_LABEL] ?? null,
        state: container.State.Status,
        exitCode: container.State.ExitCode,
        startedAt: container.State.StartedAt ?? null,
        hostPort: binding ? Number(binding.HostPort) : null,
      },
    };
  }

  private async ensureImage(image: string): Promise<void> {
    const reference = pinnedReference(image);
    const present = await this.api.request("GET", `/images/${enc(reference)}/json`);
    if (present.status === 200) return;
    const res = await this.api.request("POST", "/images/create", {
      query: { fromImage: reference },
      timeoutMs: this.pullTimeoutMs,
    });
    // A pull answers 200 and reports failures inside its JSON progress stream.
    const failure = res.body
      .toString("utf8")
      .split("\n")
      .map((line) => {
        try {
          return (JSON.parse(line) as { error?: string }).error;
        } catch {
          return undefined;
        }
      })
      .find((error) => typeof error === "string");
    if (res.status >= 400 || failure)
      throw new HostingError("platform", `could not pull ${reference}: ${failure ?? `HTTP ${res.status}`}`);
  }

  private async createContainer(
    name: string,
    agentId: string,
    image: string,
    env: Record<string, string>,
  ): Promise<void> {
    await this.api.json("POST", "/containers/create", {
      query: { name },
      body: {
        Image: pinnedReference(image),
        Env: Object.entries(env).map(([key, value]) => `${key}=${value}`),
        Labels: { [AGENT_LABEL]: agentId, [NAME_LABEL]: name, [ENV_NAMES_LABEL]: Object.keys(env).join(",") },
        ExposedPorts: { [WRAPPER_PORT]: {} },
        HostConfig: {
          PortBindings: { [WRAPPER_PORT]: [{ HostIp: this.publishHost, HostPort: "" }] },
          RestartPolicy: { Name: "unless-stopped" },
          Mounts: [{ Type: "volume", Source: `${name}-data`, Target: "/data" }],
        },
      },
    });
  }

  /** Replaces the container by one with the given image and/or env; `restart` starts it when the old ran. */
  private async recreate(
    old: ContainerInspect,
    change: { image?: string; env?: Record<string, string>; agentId?: string; restart?: boolean },
  ): Promise<void> {
    const name = old.Name.replace(/^\//, "");
    const labels = old.Config.Labels ?? {};
    const agentId = change.agentId ?? labels[AGENT_LABEL];
    if (!agentId) throw new HostingError("not_found", `container ${name} is not an agent service`);
    const env = change.env ?? agentVariables(old);
    const image = change.image ?? old.Config.Image;
    if (change.image) await this.ensureImage(change.image);
    const parked = `${name}-replaced-${Date.now().toString(36)}`;
    await this.api.expect("POST", `/containers/${enc(old.Id)}/rename`, [], { query: { name: parked } });
    try {
      await this.createContainer(name, agentId, image, env);
    } catch (err) {
      await this.api
        .expect("POST", `/containers/${enc(old.Id)}/rename`, [], { query: { name } })
        .catch(() => 0);
      throw err;
    }
    await this.api.expect("DELETE", `/containers/${enc(old.Id)}`, [404], {
      query: { force: 1 },
      timeoutMs: (this.stopSeconds + 30) * 1000,
    });
    if (change.restart && old.State.Running)
      await this.api.expect("POST", `/containers/${enc(name)}/start`, [304]);
  }
}

/** The agent's own variables of a container (the names recorded in its label), without the image's ENV. */
function agentVariables(container: ContainerInspect): Record<string, string> {
  const names = new Set((container.Config.Labels?.[ENV_NAMES_LABEL] ?? "").split(",").filter(Boolean));
  const env: Record<string, string> = {};
  for (const entry of container.Config.Env ?? []) {
    const eq = entry.indexOf("=");
    const key = eq === -1 ? entry : entry.slice(0, eq);
    if (names.has(key)) env[key] = eq === -1 ? "" : entry.slice(eq + 1);
  }
  return env;
}

const enc = encodeURIComponent;

export function createDockerHostingPlatform(options: DockerHostingOptions): DockerHostingPlatform {
  return new DockerHostingPlatform(options);
}
