/**
 * The `railway` hosting driver: one Railway service per agent in HOSTING_PROJECT_ID / HOSTING_ENVIRONMENT_ID,
 * through Railway's public GraphQL API. HOSTING_API_KEY goes in `Authorization: Bearer` (account and
 * workspace tokens) or `Project-Access-Token` (HOSTING_TOKEN_TYPE=project). Variables are written with
 * replace and skipDeploys, the image with serviceInstanceUpdate: both reach the agent at the next deploy
 * (serviceInstanceDeployV2), so a create deploys once. Status is the latest deployment's (SLEEPING, which
 * wakes on a request, counts as running); stats stay null (Railway's usage figures are not read, and none is
 * made up). Missing key, project or environment → `not_configured` on every call.
 */
import { createOutboundClient, type OutboundAnswer, type OutboundClient, OutboundError } from "@svc/common";
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

export interface RailwayHostingOptions {
  apiUrl: string;
  apiKey?: string;
  tokenType: "account" | "project";
  projectId?: string;
  environmentId?: string;
  secretValues?: readonly string[];
  /** Per-call timeout (default 30 s). */
  requestTimeoutMs?: number;
}

interface Deployment {
  id: string;
  status: string;
  deploymentStopped?: boolean | null;
}

interface ServiceInstanceNode {
  environmentId?: string;
  serviceId?: string;
  serviceName?: string;
  source?: { image?: string | null } | null;
  domains?: { serviceDomains?: { domain: string }[] } | null;
  latestDeployment?: Deployment | null;
}

const INSTANCE_FIELDS = `source { image } domains { serviceDomains { domain } } latestDeployment { id status deploymentStopped }`;

const DEPLOYING = new Set(["BUILDING", "DEPLOYING", "INITIALIZING", "QUEUED", "WAITING", "NEEDS_APPROVAL"]);

/** Railway's deployment status in the platform's vocabulary. */
export function railwayStatus(deployment: Deployment | null | undefined): ServiceStatus {
  if (!deployment || deployment.deploymentStopped) return "stopped";
  if (deployment.status === "SUCCESS" || deployment.status === "SLEEPING") return "running";
  if (DEPLOYING.has(deployment.status)) return "deploying";
  if (deployment.status === "CRASHED") return "crashed";
  if (deployment.status === "FAILED") return "failed";
  if (["REMOVED", "REMOVING", "SKIPPED"].includes(deployment.status)) return "stopped";
  return "unknown";
}

/** Room for the API's largest answers (deployment logs). */
const RAILWAY_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

const PROJECT_TOKEN_HINT = "set HOSTING_TOKEN_TYPE=project when HOSTING_API_KEY is a project token";

export class RailwayHostingPlatform implements HostingPlatform {
  readonly provider = "railway" as const;
  private readonly client: OutboundClient;

  constructor(private readonly options: RailwayHostingOptions) {
    this.client = createOutboundClient({
      name: "the Railway API",
      timeoutMs: options.requestTimeoutMs ?? 30_000,
      maxResponseBytes: RAILWAY_MAX_RESPONSE_BYTES,
    });
  }

  async ping(): Promise<void> {
    const { projectId } = this.settings();
    await this.gql("ProjectPing", `query ProjectPing($id: String!) { project(id: $id) { id name } }`, {
      id: projectId,
    });
  }

  async list(): Promise<HostedService[]> {
    const { projectId, environmentId } = this.settings();
    const data = await this.gql<{
      project: {
        services: {
          edges: {
            node: { id: string; name: string; serviceInstances: { edges: { node: ServiceInstanceNode }[] } };
          }[];
        };
      };
    }>(
      "ProjectServices",
      `query ProjectServices($id: String!) { project(id: $id) { services { edges { node { id name serviceInstances { edges { node { environmentId ${INSTANCE_FIELDS} } } } } } } } }`,
      { id: projectId },
    );
    return data.project.services.edges.map(({ node }) => {
      const instance = node.serviceInstances.edges
        .map((e) => e.node)
        .find((i) => i.environmentId === environmentId);
      return this.describe(node.id, node.name, instance ?? null);
    });
  }

  async find(ref: { id?: string | null; name: string }): Promise<HostedService | null> {
    if (ref.id) {
      const byId = await this.instance(ref.id);
      if (byId) return byId;
    }
    return (await this.list()).find((service) => service.name === ref.name) ?? null;
  }

  async create(input: CreateServiceInput): Promise<HostedService> {
    assertAgentEnv(input.env, this.options.secretValues ?? []);
    const { projectId, environmentId } = this.settings();
    const existing = await this.find({ name: input.name });
    if (existing) {
      await this.setEnv(existing.id, input.env);
      await this.setImage(existing.id, input.image);
      return this.deploy(existing.id);
    }
    const created = await this.gql<{ serviceCreate: { id: string; name: string } }>(
      "ServiceCreate",
      `mutation ServiceCreate($input: ServiceCreateInput!) { serviceCreate(input: $input) { id name } }`,
      { input: { projectId, name: input.name, source: { image: input.image } } },
    );
    const serviceId = created.serviceCreate.id;
    const volume = await this.gql<{ volumeCreate: { id: string } }>(
      "VolumeCreate",
      `mutation VolumeCreate($input: VolumeCreateInput!) { volumeCreate(input: $input) { id name } }`,
      { input: { projectId, environmentId, serviceId, mountPath: "/data" } },
    );
    const domain = await this.gql<{ serviceDomainCreate: { domain: string } }>(
      "ServiceDomainCreate",
      `mutation ServiceDomainCreate($input: ServiceDomainCreateInput!) { serviceDomainCreate(input: $input) { id domain } }`,
      { input: { serviceId, environmentId, targetPort: 8080 } },
    );
    await this.setEnv(serviceId, input.env);
    const deploymentId = await this.deployInstance(serviceId);
    return {
      id: serviceId,
      name: created.serviceCreate.name,
      url: `https://${domain.serviceDomainCreate.domain}`,
      image: input.image,
      status: "deploying",
      metadata: { deploymentId, volumeId: volume.volumeCreate.id, environmentId, deploymentStatus: null },
    };
  }

  async setEnv(id: string, env: Record<string, string>): Promise<void> {
    assertAgentEnv(env, this.options.secretValues ?? []);
    const { projectId, environmentId } = this.settings();
    await this.gql(
      "VariableCollectionUpsert",
      `mutation VariableCollectionUpsert($input: VariableCollectionUpsertInput!) { variableCollectionUpsert(input: $input) }`,
      {
        input: { projectId, environmentId, serviceId: id, variables: env, replace: true, skipDeploys: true },
      },
    );
  }

  async setImage(id: string, image: string): Promise<void> {
    const { environmentId } = this.settings();
    await this.gql(
      "ServiceInstanceUpdate",
      `mutation ServiceInstanceUpdate($serviceId: String!, $environmentId: String, $input: ServiceInstanceUpdateInput!) { serviceInstanceUpdate(serviceId: $serviceId, environmentId: $environmentId, input: $input) }`,
      { serviceId: id, environmentId, input: { source: { image } } },
    );
  }

  async deploy(id: string): Promise<HostedService> {
    const deploymentId = await this.deployInstance(id);
    const service = await this.instance(id);
    if (!service) throw new HostingError("not_found", `Railway service ${id} not found`);
    return { ...service, metadata: { ...service.metadata, deploymentId } };
  }

  async restart(id: string): Promise<void> {
    const deployment = await this.latestDeployment(id);
    if (!deployment || deployment.deploymentStopped) {
      await this.deployInstance(id);
      return;
    }
    await this.gql(
      "DeploymentRestart",
      `mutation DeploymentRestart($id: String!) { deploymentRestart(id: $id) }`,
      {
        id: deployment.id,
      },
    );
  }

  async stop(id: string): Promise<void> {
    const deployment = await this.latestDeployment(id);
    if (!deployment || deployment.deploymentStopped) return;
    await this.gql("DeploymentStop", `mutation DeploymentStop($id: String!) { deploymentStop(id: $id) }`, {
      id: deployment.id,
    });
  }

  async remove(id: string): Promise<void> {
    this.settings();
    await this.gql("ServiceDelete", `mutation ServiceDelete($id: String!) { serviceDelete(id: $id) }`, {
      id,
    });
  }

  async stats(id: string): Promise<ServiceStats> {
    if (!(await this.instance(id))) throw new HostingError("not_found", `Railway service ${id} not found`);
    return { cpuPercent: null, memoryBytes: null, memoryLimitBytes: null };
  }

  async logs(id: string, lines: number): Promise<ServiceLogLine[]> {
    const deployment = await this.latestDeployment(id);
    if (!deployment) return [];
    const limit = Math.max(1, Math.min(Math.floor(lines), 5_000));
    const data = await this.gql<{
      deploymentLogs: { timestamp: string; message: string; severity?: string | null }[];
    }>(
      "DeploymentLogs",
      `query DeploymentLogs($deploymentId: String!, $limit: Int) { deploymentLogs(deploymentId: $deploymentId, limit: $limit) { timestamp message severity } }`,
      { deploymentId: deployment.id, limit },
    );
    return data.deploymentLogs.slice(-limit).map((entry) => ({
      ts: entry.timestamp,
      stream: /^err/i.test(entry.severity ?? "") ? "stderr" : "stdout",
      line: entry.message,
    }));
  }

  async close(): Promise<void> {}

  /** The configured ids, or `not_configured` naming every missing variable. */
  private settings(): { projectId: string; environmentId: string } {
    const missing = [
      ["HOSTING_API_KEY", this.options.apiKey],
      ["HOSTING_PROJECT_ID", this.options.projectId],
      ["HOSTING_ENVIRONMENT_ID", this.options.environmentId],
    ]
      .filter(([, value]) => !value)
      .map(([name]) => name);
    if (missing.length > 0)
      throw new HostingError(
        "not_configured",
        `the Railway hosting platform is not configured: set ${missing.join(", ")} (${PROJECT_TOKEN_HINT})`,
      );
    return {
      projectId: this.options.projectId as string,
      environmentId: this.options.environmentId as string,
    };
  }

  private describe(id: string, name: string, instance: ServiceInstanceNode | null): HostedService {
    const domain = instance?.domains?.serviceDomains?.[0]?.domain;
    const deployment = instance?.latestDeployment ?? null;
    return {
      id,
      name,
      url: domain ? `https://${domain}` : null,
      image: instance?.source?.image ?? null,
      status: railwayStatus(deployment),
      metadata: {
        deploymentId: deployment?.id ?? null,
        deploymentStatus: deployment?.status ?? null,
        environmentId: this.options.environmentId ?? null,
      },
    };
  }

  /** The service's instance in our environment, or null when Railway knows no such service. */
  private async instance(serviceId: string): Promise<HostedService | null> {
    const { environmentId } = this.settings();
    try {
      const data = await this.gql<{ serviceInstance: ServiceInstanceNode | null }>(
        "ServiceInstance",
        `query ServiceInstance($serviceId: String!, $environmentId: String!) { serviceInstance(serviceId: $serviceId, environmentId: $environmentId) { serviceId serviceName ${INSTANCE_FIELDS} } }`,
        { serviceId, environmentId },
      );
      if (!data.serviceInstance) return null;
      return this.describe(serviceId, data.serviceInstance.serviceName ?? serviceId, data.serviceInstance);
    } catch (err) {
      if (err instanceof HostingError && err.reason === "not_found") return null;
      throw err;
    }
  }

  private async latestDeployment(serviceId: string): Promise<Deployment | null> {
    const { environmentId } = this.settings();
    const data = await this.gql<{ deployments: { edges: { node: Deployment }[] } }>(
      "LatestDeployment",
      `query LatestDeployment($input: DeploymentListInput!) { deployments(first: 1, input: $input) { edges { node { id status deploymentStopped } } } }`,
      { input: { serviceId, environmentId } },
    );
    return data.deployments.edges[0]?.node ?? null;
  }

  private async deployInstance(serviceId: string): Promise<string | null> {
    const { environmentId } = this.settings();
    const data = await this.gql<{ serviceInstanceDeployV2: string | null }>(
      "ServiceInstanceDeploy",
      `mutation ServiceInstanceDeploy($serviceId: String!, $environmentId: String!) { serviceInstanceDeployV2(serviceId: $serviceId, environmentId: $environmentId) }`,
      { serviceId, environmentId },
    );
    return data.serviceInstanceDeployV2 ?? null;
  }

  private async gql<T>(operationName: string, query: string, variables: Record<string, unknown>): Promise<T> {
    const apiKey = this.options.apiKey;
    if (!apiKey) this.settings();
    const auth: Record<string, string> =
      this.options.tokenType === "project"
        ? { "project-access-token": apiKey as string }
        : { authorization: `Bearer ${apiKey}` };
    let res: OutboundAnswer;
    try {
      res = await this.client.request({
        method: "POST",
        url: this.options.apiUrl,
        headers: auth,
        json: { operationName, query, variables },
      });
    } catch (err) {
      if (!(err instanceof OutboundError)) throw err;
      const why = err.reason === "timeout" ? "timeout" : (err.socketCode ?? err.detail);
      throw new HostingError("platform", `Railway API unreachable (${operationName}): ${why}`);
    }
    const body = (res.json() ?? null) as { data?: T; errors?: { message?: string }[] } | null;
    const messages = (body?.errors ?? []).map((e) => e.message ?? "error").join("; ");
    if (res.status === 401 || res.status === 403 || /not authori[sz]ed/i.test(messages))
      throw new HostingError(
        "platform",
        `Railway refused the credentials (${operationName}); ${PROJECT_TOKEN_HINT}`,
      );
    if (messages) {
      throw new HostingError(
        /not found/i.test(messages) ? "not_found" : "platform",
        `Railway ${operationName}: ${messages}`,
      );
    }
    if (!res.ok || !body?.data)
      throw new HostingError("platform", `Railway ${operationName}: HTTP ${res.status}`);
    return body.data;
  }
}

export function createRailwayHostingPlatform(options: RailwayHostingOptions): RailwayHostingPlatform {
  return new RailwayHostingPlatform(options);
}
