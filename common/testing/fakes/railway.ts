/**
 * A loopback stand-in for Railway's public GraphQL API: the operations the railway hosting driver sends,
 * answered from an in-memory project the way Railway shapes them (connections with `edges { node }`,
 * `errors` with HTTP 200 for refused tokens and unknown ids). Each operation's root field is checked in
 * the query text, so a renamed field fails the test.
 */
import type { IncomingHttpHeaders } from "node:http";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeRailwayService {
  id: string;
  name: string;
  image: string;
  variables: Record<string, string>;
  domain: string | null;
  volumeMountPath: string | null;
  deployments: {
    id: string;
    status: string;
    deploymentStopped: boolean;
    logs: { timestamp: string; message: string; severity: string }[];
  }[];
}

export interface FakeRailwayCall {
  operationName: string;
  variables: Record<string, unknown>;
  query: string;
  headers: IncomingHttpHeaders;
}

export interface FakeRailway {
  url: string;
  calls: FakeRailwayCall[];
  services: Map<string, FakeRailwayService>;
  /** Sets the status of the service's latest deployment. */
  setDeploymentStatus(serviceId: string, status: string): void;
  operations(): string[];
  close(): Promise<void>;
}

export interface FakeRailwayOptions {
  token: string;
  tokenType: "account" | "project";
  projectId: string;
  environmentId: string;
}

const ROOT_FIELDS: Record<string, string> = {
  ProjectPing: "project(id:",
  ProjectServices: "project(id:",
  ServiceInstance: "serviceInstance(serviceId:",
  ServiceCreate: "serviceCreate(input:",
  VolumeCreate: "volumeCreate(input:",
  ServiceDomainCreate: "serviceDomainCreate(input:",
  VariableCollectionUpsert: "variableCollectionUpsert(input:",
  ServiceInstanceUpdate: "serviceInstanceUpdate(serviceId:",
  ServiceInstanceDeploy: "serviceInstanceDeployV2(serviceId:",
  LatestDeployment: "deployments(first: 1, input:",
  DeploymentRestart: "deploymentRestart(id:",
  DeploymentStop: "deploymentStop(id:",
  ServiceDelete: "serviceDelete(id:",
  DeploymentLogs: "deploymentLogs(deploymentId:",
};

export async function startFakeRailway(options: FakeRailwayOptions): Promise<FakeRailway> {
  const calls: FakeRailwayCall[] = [];
  const services = new Map<string, FakeRailwayService>();
  let sequence = 0;
  const nextId = (prefix: string) => `${prefix}-${(++sequence).toString().padStart(4, "0")}`;

  const latest = (s: FakeRailwayService) => s.deployments.at(-1) ?? null;
  const instanceNode = (s: FakeRailwayService) => ({
    environmentId: options.environmentId,
    serviceId: s.id,
    serviceName: s.name,
    source: { image: s.image },
    domains: { serviceDomains: s.domain ? [{ domain: s.domain }] : [] },
    latestDeployment: latest(s)
      ? { id: latest(s)?.id, status: latest(s)?.status, deploymentStopped: latest(s)?.deploymentStopped }
      : null,
  });

  const authorized = (headers: IncomingHttpHeaders) =>
    options.tokenType === "project"
      ? headers["project-access-token"] === options.token && headers.authorization === undefined
      : headers.authorization === `Bearer ${options.token}` && headers["project-access-token"] === undefined;

  const resolve = (operationName: string, v: Record<string, unknown>): { data?: unknown; error?: string } => {
    const input = (v.input ?? {}) as Record<string, unknown>;
    const service = (id: unknown) => services.get(String(id));
    const inScope = (projectId: unknown, environmentId: unknown) =>
      (projectId === undefined || projectId === options.projectId) &&
      (environmentId === undefined || environmentId === options.environmentId);
    switch (operationName) {
      case "ProjectPing":
      case "ProjectServices": {
        if (v.id !== options.projectId) return { error: "Project not found" };
        return {
          data: {
            project: {
              id: options.projectId,
              name: "agents",
              services: {
                edges: [...services.values()].map((s) => ({
                  node: { id: s.id, name: s.name, serviceInstances: { edges: [{ node: instanceNode(s) }] } },
                })),
              },
            },
          },
        };
      }
      case "ServiceInstance": {
        const s = service(v.serviceId);
        if (!s || v.environmentId !== options.environmentId) return { error: "ServiceInstance not found" };
        return { data: { serviceInstance: instanceNode(s) } };
      }
      case "ServiceCreate": {
        if (input.projectId !== options.projectId) return { error: "Project not found" };
        const s: FakeRailwayService = {
          id: nextId("svc"),
          name: String(input.name),
          image: String((input.source as { image?: string })?.image),
          variables: {},
          domain: null,
          volumeMountPath: null,
          deployments: [],
        };
        services.set(s.id, s);
        return { data: { serviceCreate: { id: s.id, name: s.name } } };
      }
      case "VolumeCreate": {
        const s = service(input.serviceId);
        if (!s || !inScope(input.projectId, input.environmentId)) return { error: "Service not found" };
        s.volumeMountPath = String(input.mountPath);
        return { data: { volumeCreate: { id: nextId("vol"), name: `${s.name}-volume` } } };
      }
      case "ServiceDomainCreate": {
        const s = service(input.serviceId);
        if (!s || !inScope(undefined, input.environmentId)) return { error: "Service not found" };
        s.domain = `${s.name}-production.up.railway.app`;
        return { data: { serviceDomainCreate: { id: nextId("dom"), domain: s.domain } } };
      }
      case "VariableCollectionUpsert": {
        const s = service(input.serviceId);
        if (!s || !inScope(input.projectId, input.environmentId)) return { error: "Service not found" };
        const variables = input.variables as Record<string, string>;
        s.variables = input.replace ? { ...variables } : { ...s.variables, ...variables };
        return { data: { variableCollectionUpsert: true } };
      }
      case "ServiceInstanceUpdate": {
        const s = service(v.serviceId);
        if (!s || !inScope(undefined, v.environmentId)) return { error: "Service not found" };
        const image = ((input.source ?? {}) as { image?: string }).image;
        if (image) s.image = image;
        return { data: { serviceInstanceUpdate: true } };
      }
      case "ServiceInstanceDeploy": {
        const s = service(v.serviceId);
        if (!s || !inScope(undefined, v.environmentId)) return { error: "Service not found" };
        const deployment = { id: nextId("dep"), status: "BUILDING", deploymentStopped: false, logs: [] };
        s.deployments.push(deployment);
        return { data: { serviceInstanceDeployV2: deployment.id } };
      }
      case "LatestDeployment": {
        const s = service(input.serviceId);
        if (!s || !inScope(input.projectId, input.environmentId))
          return { data: { deployments: { edges: [] } } };
        const d = latest(s);
        return {
          data: {
            deployments: {
              edges: d
                ? [{ node: { id: d.id, status: d.status, deploymentStopped: d.deploymentStopped } }]
                : [],
            },
          },
        };
      }
      case "DeploymentRestart":
      case "DeploymentStop": {
        const d = [...services.values()].flatMap((s) => s.deployments).find((x) => x.id === v.id);
        if (!d) return { error: "Deployment not found" };
        if (operationName === "DeploymentStop") d.deploymentStopped = true;
        else d.status = "DEPLOYING";
        return {
          data: { [operationName === "DeploymentStop" ? "deploymentStop" : "deploymentRestart"]: true },
        };
      }
      case "ServiceDelete": {
        if (!services.delete(String(v.id))) return { error: "Service not found" };
        return { data: { serviceDelete: true } };
      }
      case "DeploymentLogs": {
        const d = [...services.values()].flatMap((s) => s.deployments).find((x) => x.id === v.deploymentId);
        if (!d) return { error: "Deployment not found" };
        return { data: { deploymentLogs: d.logs.slice(-Number(v.limit ?? 100)) } };
      }
      default:
        return { error: `Cannot query field for operation ${operationName}` };
    }
  };

  const upstream: FakeUpstream = await startFakeUpstream((req, res, raw) => {
    let body: { operationName?: string; query?: string; variables?: Record<string, unknown> };
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch {
      return sendJson(res, 400, { errors: [{ message: "Body is not JSON" }] });
    }
    const operationName = body.operationName ?? "";
    const query = body.query ?? "";
    const variables = body.variables ?? {};
    calls.push({ operationName, variables, query, headers: req.headers });
    if (!authorized(req.headers))
      return sendJson(res, 200, { errors: [{ message: "Not Authorized" }], data: null });
    const rootField = ROOT_FIELDS[operationName];
    if (!rootField || !query.replace(/\s+/g, " ").includes(rootField) || !query.includes(`${operationName}(`))
      return sendJson(res, 400, { errors: [{ message: `unexpected operation ${operationName}: ${query}` }] });
    const result = resolve(operationName, variables);
    if (result.error) return sendJson(res, 200, { errors: [{ message: result.error }], data: null });
    sendJson(res, 200, { data: result.data });
  });

  return {
    url: `${upstream.url}/graphql/v2`,
    calls,
    services,
    setDeploymentStatus(serviceId, status) {
      const d = services.get(serviceId)?.deployments.at(-1);
      if (!d) throw new Error(`no deployment of ${serviceId}`);
      d.status = status;
    },
    operations: () => calls.map((c) => c.operationName),
    close: () => upstream.close(),
  };
}
