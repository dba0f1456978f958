/**
 * The pieces every service's OpenAPI 3.1 document is built from: one table entry per route (method, path,
 * auth, request, success response, error statuses), the security schemes of the platform and the error
 * body shapes, turned into a document by zod-openapi from the same zod schemas the routes validate with.
 */

import { z } from "zod";
import type { $ZodType } from "zod/v4/core";
import {
  createDocument,
  type oas31,
  type ZodOpenApiOperationObject,
  type ZodOpenApiPathsObject,
  type ZodOpenApiResponseObject,
} from "zod-openapi";
import { SESSION_COOKIE } from "../cookies";

export type OpenApiDocument = oas31.OpenAPIObject;
export type HttpMethod = "get" | "post" | "put" | "patch" | "delete";
type ZodObjectLike = $ZodType<unknown, Record<string, unknown>>;

/**
 * How a route authenticates; an operation lists the alternatives it accepts (`none`: public).
 * `internalUser`: the internal API key as Bearer plus the signed user context headers (the web's calls).
 */
export type AuthName =
  | "none"
  | "session"
  | "internalKey"
  | "internalUser"
  | "gatewayToken"
  | "apiKey"
  | "metricsToken"
  | "webhookSecret";

export const securitySchemes: Record<string, oas31.SecuritySchemeObject> = {
  session: {
    type: "apiKey",
    in: "cookie",
    name: SESSION_COOKIE,
    description: "The dashboard's session cookie, set by sign-in (password, passkey or identity provider).",
  },
  internalKey: {
    type: "http",
    scheme: "bearer",
    description:
      "`Authorization: Bearer <INTERNAL_API_KEY>`: the web's (and operators') calls to the backend.",
  },
  userId: { type: "apiKey", in: "header", name: "x-user-id", description: "Signed user context: user id." },
  userEmail: {
    type: "apiKey",
    in: "header",
    name: "x-user-email",
    description: "Signed user context: email.",
  },
  userRole: { type: "apiKey", in: "header", name: "x-user-role", description: "Signed user context: role." },
  userSignature: {
    type: "apiKey",
    in: "header",
    name: "x-user-signature",
    description: "HMAC-SHA256 (hex) of `{userId}:{userEmail}:{userRole}` with the user-context secret.",
  },
  gatewayToken: {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <OPENCLAW_GATEWAY_TOKEN>`: an agent's own gateway token.",
  },
  apiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "`Authorization: Bearer svc_...`: a user's API key (created in Settings or at /api/keys). It reaches an " +
      "operation only with the scope its security requirement lists (`<area>:read`, `<area>:write` — which " +
      "includes read — or `all`), chosen when the key was made; without it 403 `insufficient_scope` names " +
      "the scope. An expired key is 401 `api_key_expired`. Account, API key, passkey and password routes " +
      "take no key (403 `api_key_not_allowed`).",
  },
  metricsToken: {
    type: "http",
    scheme: "bearer",
    description: "`Authorization: Bearer <METRICS_TOKEN>`, required only when METRICS_TOKEN is set.",
  },
  webhookSecret: {
    type: "apiKey",
    in: "header",
    name: "x-webhook-secret",
    description: "The hosting platform's shared webhook secret (or the same as `Authorization: Bearer`).",
  },
};

const requirements: Record<Exclude<AuthName, "none">, oas31.SecurityRequirementObject> = {
  session: { session: [] },
  internalKey: { internalKey: [] },
  internalUser: { internalKey: [], userId: [], userEmail: [], userRole: [], userSignature: [] },
  gatewayToken: { gatewayToken: [] },
  apiKey: { apiKey: [] },
  metricsToken: { metricsToken: [] },
  webhookSecret: { webhookSecret: [] },
};

/** Error bodies: the web's routes, the summarizer, the backend (`extra` fields beside them). */
export const webErrorBody = z
  .object({
    error: z.string().meta({ description: "a message for people" }),
    code: z.string(),
    field: z.string().optional().meta({
      description: "the request field the error is about, as its JSON path (`cronSchedule`, `response.id`)",
    }),
  })
  .catchall(z.unknown())
  .meta({ id: "WebError", description: "`{error, code}`: a message and a machine-readable code." });
export const summarizerErrorBody = z
  .object({ error: z.string() })
  .meta({ id: "SummarizerError", description: "`{error}`: what went wrong." });
export const backendErrorBody = z
  .object({ error: z.string().meta({ description: "a machine-readable code" }), message: z.string() })
  .catchall(z.unknown())
  .meta({ id: "BackendError", description: "`{error: code, message, ...extra}`." });

/** Any JSON object: the answer of a route whose fields come from elsewhere (the backend, an agent). */
export const jsonObject = z.record(z.string(), z.unknown());

export interface ApiSuccess {
  status: number;
  description: string;
  /** The body's schema; absent: no body (or none described, e.g. a redirect). */
  schema?: $ZodType;
  /** Default `application/json`. */
  contentType?: string;
}

/** One route of a service: the table entry its document is made from. */
export interface ApiOperation {
  method: HttpMethod;
  /** OpenAPI path template: `/api/keys/{id}`. */
  path: string;
  summary: string;
  tags?: string[];
  /** The alternatives the route accepts; `["none"]` for a public route. */
  auth: readonly AuthName[];
  /**
   * With `apiKey` in `auth`: the scope a key needs (`files:read`), listed in the key's security requirement
   * (OpenAPI's scopes of a non-OAuth scheme: the roles it needs).
   */
  scope?: string;
  query?: ZodObjectLike;
  /** Path parameters; default: each `{name}` of the path as a string. */
  params?: ZodObjectLike;
  body?: $ZodType;
  /** Default `application/json`. */
  bodyType?: string;
  success: ApiSuccess;
  /** The error body of this route when it differs from the service's (e.g. the backend's passed through). */
  errorBody?: $ZodType;
  /** Error statuses and when they happen; each has the service's error body unless it gives its own. */
  errors?: Record<number, string | ApiSuccess>;
  description?: string;
  /**
   * Default: the method and the path's words (`getApiKeysId`). Client generators name their methods by it,
   * so two operations may not share one: give one of them its own when their paths make the same.
   */
  operationId?: string;
  /**
   * The backend routes this (web) route calls, as `POST /api/platform-jobs/provision`: the operation's
   * `x-backend-routes`, which docs/routes.md lists (scripts/docs/routes.test.ts holds them to the code).
   */
  backendRoutes?: readonly string[];
}

export interface OpenApiServiceDocument {
  title: string;
  version: string;
  description: string;
  /** The service's error body (one of the `*ErrorBody` schemas). */
  errorBody: $ZodType;
  operations: readonly ApiOperation[];
}

/** `GET /metrics`, the same on every service. */
export const metricsOperation: ApiOperation = {
  method: "get",
  path: "/metrics",
  summary: "Prometheus metrics (text exposition format)",
  tags: ["meta"],
  auth: ["none", "metricsToken"],
  success: {
    status: 200,
    description: "the metrics",
    schema: z.string(),
    contentType: "text/plain; version=0.0.4",
  },
  errors: {
    401: {
      status: 401,
      description: "METRICS_TOKEN is set and the Bearer is not it",
      schema: z.string(),
      contentType: "text/plain",
    },
  },
};

/** `GET <path>` answering the service's own document. */
export function openApiDocumentOperation(path: string): ApiOperation {
  return {
    method: "get",
    path,
    summary: "This OpenAPI 3.1 document",
    tags: ["meta"],
    auth: ["none"],
    success: { status: 200, description: "the document", schema: jsonObject },
  };
}

/** The agent runtime's operations: read with GET, acted on with POST (the backend's and the web's routes). */
export const AGENT_GET_OPERATIONS = ["state", "stats", "gateway-token", "health", "logs"] as const;
export const AGENT_POST_OPERATIONS = [
  "start",
  "stop",
  "restart",
  "repair",
  "reset-memory",
  "update",
  "compat",
  "heal-token",
  "maintenance",
] as const;
export type AgentGetOperation = (typeof AGENT_GET_OPERATIONS)[number];
export type AgentPostOperation = (typeof AGENT_POST_OPERATIONS)[number];

/** How a service exposes the agent runtime's operations; each varies by the operation's name. */
export interface AgentOperationsEntry<Name extends string> {
  summary: (name: Name) => string;
  success: (name: Name) => string;
  errors: (name: Name) => Record<number, string>;
}

export interface AgentOperationsOptions {
  path: (name: AgentGetOperation | AgentPostOperation) => string;
  tags: string[];
  auth: readonly AuthName[];
  /** `logs`' query and `maintenance`'s body, as the service validates them. */
  logsQuery: ZodObjectLike;
  maintenanceBody: $ZodType;
  get: AgentOperationsEntry<AgentGetOperation>;
  post: AgentOperationsEntry<AgentPostOperation>;
  errorBody?: $ZodType;
}

/** One table entry per agent runtime operation: the GETs, then the POSTs. */
export function agentOperations(options: AgentOperationsOptions): ApiOperation[] {
  const common = (method: HttpMethod, name: AgentGetOperation | AgentPostOperation) => ({
    method,
    path: options.path(name),
    tags: options.tags,
    auth: options.auth,
    ...(options.errorBody ? { errorBody: options.errorBody } : {}),
  });
  return [
    ...AGENT_GET_OPERATIONS.map(
      (name): ApiOperation => ({
        ...common("get", name),
        summary: options.get.summary(name),
        ...(name === "logs" ? { query: options.logsQuery } : {}),
        success: { status: 200, description: options.get.success(name), schema: jsonObject },
        errors: options.get.errors(name),
      }),
    ),
    ...AGENT_POST_OPERATIONS.map(
      (name): ApiOperation => ({
        ...common("post", name),
        summary: options.post.summary(name),
        ...(name === "maintenance" ? { body: options.maintenanceBody } : {}),
        success: { status: 200, description: options.post.success(name), schema: jsonObject },
        errors: options.post.errors(name),
      }),
    ),
  ];
}

/**
 * The server of every document: a relative URL, which OpenAPI resolves against the address the document was
 * fetched from, so the document names the server that served it wherever that runs.
 */
export const documentServers: oas31.ServerObject[] = [
  { url: "/", description: "the server this document was fetched from" },
];

/** Builds the service's OpenAPI 3.1 document from its route table. */
export function buildOpenApiDocument(service: OpenApiServiceDocument): OpenApiDocument {
  const paths: ZodOpenApiPathsObject = {};
  const operationIds = new Map<string, string>();
  const usedSchemes = new Set<string>();
  for (const op of service.operations) {
    const route = `${op.method.toUpperCase()} ${op.path}`;
    paths[op.path] ??= {};
    const item = paths[op.path];
    if (item[op.method]) throw new Error(`OpenAPI: ${route} listed twice`);
    const operation = operationObject(op, service.errorBody);
    const id = operation.operationId as string;
    const taken = operationIds.get(id);
    if (taken) throw new Error(`OpenAPI: ${taken} and ${route} have the same operationId "${id}"`);
    operationIds.set(id, route);
    for (const requirement of operation.security ?? []) {
      for (const name of Object.keys(requirement)) usedSchemes.add(name);
    }
    item[op.method] = operation;
  }
  return createDocument({
    openapi: "3.1.0",
    info: { title: service.title, version: service.version, description: service.description },
    servers: documentServers,
    paths,
    // Only the schemes this service's operations use (a scheme no operation names is noise to a client).
    components: {
      securitySchemes: Object.fromEntries(
        Object.entries(securitySchemes).filter(([name]) => usedSchemes.has(name)),
      ),
    },
  });
}

function operationObject(op: ApiOperation, errorBody: $ZodType): ZodOpenApiOperationObject {
  const pathNames = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
  const params =
    op.params ??
    (pathNames.length > 0 ? z.object(Object.fromEntries(pathNames.map((n) => [n, z.string()]))) : undefined);
  const responses: Record<string, ZodOpenApiResponseObject> = {
    [String(op.success.status)]: responseObject(op.success),
  };
  for (const [status, error] of Object.entries(op.errors ?? {})) {
    responses[status] = responseObject(
      typeof error === "string"
        ? { status: Number(status), description: error, schema: op.errorBody ?? errorBody }
        : error,
    );
  }
  const schemes = op.auth.filter((name): name is Exclude<AuthName, "none"> => name !== "none");
  // `{}` is OpenAPI's "no credentials": a route that is public but also takes credentials lists it first.
  const anonymous = op.auth.length === 0 || op.auth.includes("none");
  return {
    summary: op.summary,
    ...(op.description ? { description: op.description } : {}),
    ...(op.tags ? { tags: op.tags } : {}),
    operationId: op.operationId ?? operationId(op),
    ...(op.backendRoutes ? { "x-backend-routes": [...op.backendRoutes] } : {}),
    security: [
      ...(anonymous && schemes.length > 0 ? [{}] : []),
      ...schemes.map((name) => (name === "apiKey" && op.scope ? { apiKey: [op.scope] } : requirements[name])),
    ],
    ...(op.query || params
      ? { requestParams: { ...(op.query ? { query: op.query } : {}), ...(params ? { path: params } : {}) } }
      : {}),
    ...(op.body
      ? {
          requestBody: {
            required: true,
            content: { [op.bodyType ?? "application/json"]: { schema: op.body } },
          },
        }
      : {}),
    responses,
  };
}

function responseObject({ description, schema, contentType }: ApiSuccess): ZodOpenApiResponseObject {
  return {
    description,
    ...(schema ? { content: { [contentType ?? "application/json"]: { schema } } } : {}),
  };
}

function operationId(op: ApiOperation): string {
  const words = op.path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1));
  return `${op.method}${words.join("")}`;
}

/** `GET /api/keys/{id}` for every operation of a document: what the coverage tests compare. */
export function documentedRoutes(document: OpenApiDocument): string[] {
  const routes: string[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of ["get", "post", "put", "patch", "delete"] as const) {
      if (item?.[method]) routes.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return routes.sort();
}

/** An Express (`/api/x/:id`) or Next (`/api/x/[id]`) path as an OpenAPI template (`/api/x/{id}`). */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z0-9_]+)/g, "{$1}").replace(/\[([A-Za-z0-9_]+)\]/g, "{$1}");
}
