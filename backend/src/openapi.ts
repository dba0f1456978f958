/**
 * The backend's OpenAPI 3.1 document (`GET /openapi.json`): one entry per route, built from the zod
 * schemas the routes validate with. A new route adds its entry here; `openapi.test.ts` fails until it does.
 */
import {
  type ApiOperation,
  agentOperations,
  backendErrorBody,
  buildOpenApiDocument,
  jsonObject,
  metricsOperation,
  type OpenApiDocument,
  openApiDocumentOperation,
} from "@svc/common/openapi/index";
import { backendSetupSchema } from "@svc/common/setup";
import { Router } from "express";
import { z } from "zod";
import { adminListQuery } from "./admin/inputs";
import { chatCompletionBody } from "./ai/inputs";
import { validateKeyBody } from "./apikeys/inputs";
import {
  classifyBody,
  decisionBody,
  decisionWaitQuery,
  hookClassifyBody,
  listQuery,
  permissionSocketQuery,
} from "./permissions/inputs";
import { chatJobSchema, jobListQuery, provisionJobSchema } from "./platform-jobs/inputs";
import { logsQuery, maintenanceBody } from "./runtime/inputs";
import { PROXY_PREFIX } from "./runtime/proxy";

const internalErrors = {
  401: "no `Authorization: Bearer` header",
  403: "the Bearer is not the internal API key",
  500: "INTERNAL_API_KEY is not configured",
} as const;
const userErrors = {
  ...internalErrors,
  401: "no Bearer, or the signed user context is missing or its signature is wrong",
} as const;
/** The permission routes also take a user's own API key, which needs its approvals scope. */
const apiKeyErrors = {
  401: "no Bearer, or an API key that is unknown, revoked or expired",
  403: "the Bearer is not the internal API key, or an API key without the scope (`insufficient_scope`)",
} as const;
const agentErrors = {
  ...userErrors,
  404: "no such agent, or another user's agent",
  503: "the hosting platform is not configured",
} as const;

const job = jsonObject.meta({ id: "PlatformJob", description: 'A platform job (spec "Jobs").' });
const enqueued = z.object({ success: z.literal(true), queued: z.literal(true), job });
const permission = jsonObject.meta({ id: "PermissionRequest" });
const classifyAnswer = z
  .object({ allow: z.boolean(), tier: z.string(), reason: z.string(), requestId: z.string().optional() })
  .meta({ id: "ClassifyAnswer" });
const page = (name: string) =>
  z.object({ [name]: z.array(jsonObject), total: z.number().optional() }).loose();

const proxyMethods = ["get", "post", "put", "patch", "delete"] as const;
const chatCompletionAnswer = {
  status: 200,
  description: "the provider's completion (JSON), or server-sent events with `stream: true`",
  schema: jsonObject,
};

export const backendOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/health",
    summary: "Backend health: database and provisioning",
    tags: ["health"],
    auth: ["none"],
    success: {
      status: 200,
      description: "the database answers",
      schema: z.object({ status: z.enum(["ok", "unhealthy"]) }).loose(),
    },
    errors: { 503: "the database does not answer (body: the same health object, status `unhealthy`)" },
  },
  openApiDocumentOperation("/openapi.json"),
  metricsOperation,
  {
    method: "post",
    path: "/api/validate-key",
    summary: "Validate a user's API key",
    tags: ["api keys"],
    auth: ["internalKey"],
    body: validateKeyBody,
    success: {
      status: 200,
      description: "`{valid: true, userId}` or `{valid: false}`",
      schema: z.object({ valid: z.boolean(), userId: z.string().optional() }),
    },
    errors: { ...internalErrors, 400: "bad body" },
  },
  ...(
    [
      ["provision", "Enqueue a provision job", provisionJobSchema],
      ["chat", "Enqueue a gateway chat job", chatJobSchema],
    ] as const
  ).map(
    ([kind, summary, body]): ApiOperation => ({
      method: "post",
      path: `/api/platform-jobs/${kind}`,
      summary,
      tags: ["jobs"],
      auth: ["internalKey"],
      body,
      success: { status: 202, description: "queued", schema: enqueued },
      errors: { ...internalErrors, 400: "bad body" },
    }),
  ),
  {
    method: "get",
    path: "/api/platform-jobs",
    summary: "The signed user's own jobs, newest first, one page",
    tags: ["jobs"],
    auth: ["internalUser"],
    query: jobListQuery,
    success: {
      status: 200,
      description: "`{jobs, nextCursor}`; `nextCursor` is null on the last page",
      schema: z.object({ jobs: z.array(job), nextCursor: z.string().nullable() }),
    },
    errors: { ...userErrors, 400: "bad limit, cursor, type or status" },
  },
  {
    method: "get",
    path: "/api/platform-jobs/metrics",
    summary: "Queue counts by status and lane",
    tags: ["jobs"],
    auth: ["internalKey"],
    success: { status: 200, description: "queue metrics", schema: jsonObject },
    errors: internalErrors,
  },
  {
    method: "get",
    path: "/api/platform-jobs/{jobId}",
    summary: "One job",
    tags: ["jobs"],
    auth: ["internalKey"],
    success: { status: 200, description: "`{job}`", schema: z.object({ job }) },
    errors: { ...internalErrors, 404: "no such job" },
  },
  ...(["users", "agents", "partners"] as const).map(
    (what): ApiOperation => ({
      method: "get",
      path: `/api/admin/${what}`,
      summary: `List ${what}, newest first (admins)`,
      tags: ["admin"],
      auth: ["internalUser"],
      query: adminListQuery,
      success: { status: 200, description: `a page of ${what}`, schema: page(what) },
      errors: { ...userErrors, 400: "bad limit or offset", 403: "not the internal key, or not an admin" },
    }),
  ),
  {
    method: "post",
    path: "/api/ai/gateway",
    summary: "Chat completion for the web's v1 gateway AI plugins (paid per call there; no per-user budget)",
    tags: ["ai"],
    auth: ["internalKey"],
    body: chatCompletionBody,
    success: chatCompletionAnswer,
    errors: {
      400: "bad body",
      401: "no internal key",
      403: "wrong internal key, or a model AI_MODELS does not allow",
      502: "the provider failed",
      503: "no AI provider configured",
      504: "the provider did not answer in time",
    },
  },
  {
    method: "post",
    path: "/api/ai/chat",
    summary: "OpenAI-compatible chat completion through the platform's AI provider",
    tags: ["ai"],
    auth: ["gatewayToken", "internalUser"],
    body: chatCompletionBody,
    success: chatCompletionAnswer,
    errors: {
      ...userErrors,
      400: "bad body",
      402: "the signed plan does not match the user's subscription",
      403: "the model is not allowed on the plan",
      429: "the plan's budget is spent (`Retry-After`)",
      502: "the provider failed",
      504: "the provider did not answer in time",
      503: "no AI provider configured",
    },
  },
  {
    method: "post",
    path: "/api/ai/chat/completions",
    summary:
      "OpenAI's chat completions path of the AI proxy, for agents' runtimes (provider `baseUrl` " +
      "`<backend>/api/ai`): `/api/ai/chat` with the agent's gateway token, errors in OpenAI's shape " +
      "`{error: {message, type, param, code}}`; a stream is always asked for its usage, which counts",
    tags: ["ai"],
    auth: ["gatewayToken"],
    body: chatCompletionBody,
    success: {
      status: 200,
      description:
        "the provider's completion (JSON), or its server-sent events as they arrive with `stream: true`",
      schema: jsonObject,
    },
    errors: {
      400: "bad body (the message names the field)",
      401: "no Bearer, or not an agent's gateway token",
      403: "the model is not allowed on the plan",
      413: "body over 8 MB",
      429: "the plan's budget is spent (`Retry-After`)",
      500: "unexpected failure",
      502: "the provider failed",
      503: "no AI provider configured",
      504: "the provider did not answer in time",
    },
  },
  {
    method: "get",
    path: "/api/runtime/version",
    summary: "The runtime release the platform deploys",
    tags: ["runtime"],
    auth: ["internalKey"],
    success: {
      status: 200,
      description: "`{version, image, defaultImage}`",
      schema: z.object({ version: z.string(), image: z.string(), defaultImage: z.string() }),
    },
    errors: internalErrors,
  },
  {
    method: "get",
    path: "/api/setup",
    summary: "The backend's part of the setup checklist: AI provider, hosting driver, agent runtime",
    description:
      "Whether each capability the backend owns is configured, and which of its variables are unset; never a " +
      "secret's value. The web's `GET /api/setup` puts it into words.",
    tags: ["setup"],
    auth: ["internalKey"],
    success: { status: 200, description: "`{aiProvider, hosting, runtime}`", schema: backendSetupSchema },
    errors: internalErrors,
  },
  ...agentOperations({
    path: (name) => `/api/agents/{agentId}/${name}`,
    tags: ["agents"],
    auth: ["internalUser"],
    logsQuery,
    maintenanceBody,
    get: {
      summary: (name) => `Agent ${name}`,
      success: (name) => `the agent's ${name}`,
      errors: (name) => (name === "logs" ? { ...agentErrors, 400: "lines is not 1 to 500" } : agentErrors),
    },
    post: {
      summary: (name) => `Agent operation: ${name}`,
      success: () => "the operation's outcome",
      errors: () => ({
        ...agentErrors,
        400: "bad body",
        409: "the agent has no deployed runtime yet",
        502: "agent failed",
      }),
    },
  }),
  {
    method: "post",
    path: "/api/agents/{agentId}/deprovision",
    summary:
      "Remove the agent for good: its service on the hosting platform, then its record (account deletion)",
    tags: ["agents"],
    auth: ["internalUser"],
    success: {
      status: 200,
      description: "`{ok: true, action: 'deprovision', agentId, serviceRemoved}`",
      schema: z.object({
        ok: z.literal(true),
        action: z.literal("deprovision"),
        agentId: z.string(),
        serviceRemoved: z.boolean(),
      }),
    },
    errors: {
      ...agentErrors,
      500: "the hosting platform refused or failed to remove the service (`action_failed`)",
      503: "the hosting platform is not configured, and the agent was deployed",
    },
  },
  {
    method: "get",
    path: "/api/runtime/instances",
    summary: "Runtime instances on the hosting platform",
    tags: ["runtime"],
    auth: ["internalKey"],
    success: {
      status: 200,
      description: "`{instances}`",
      schema: z.object({ instances: z.array(jsonObject) }),
    },
    errors: { ...internalErrors, 503: "the hosting platform is not configured" },
  },
  {
    method: "get",
    path: "/api/runtime/instances/{id}/stats",
    summary: "One runtime instance's stats",
    tags: ["runtime"],
    auth: ["internalKey"],
    success: { status: 200, description: "the instance's stats", schema: jsonObject },
    errors: { ...internalErrors, 404: "no such instance", 503: "the hosting platform is not configured" },
  },
  ...proxyMethods.map(
    (method): ApiOperation => ({
      method,
      path: `${PROXY_PREFIX}/{agentId}/{path}`,
      summary: "Proxy to the agent's runtime (any method and sub-path; WebSocket upgrades on GET too)",
      tags: ["runtime"],
      auth: ["internalUser"],
      params: z.object({ agentId: z.string(), path: z.string().meta({ description: "any sub-path" }) }),
      success: { status: 200, description: "the agent's answer, streamed as is" },
      errors: {
        ...agentErrors,
        409: "the agent has no deployed runtime yet",
        502: "the agent could not be reached",
        504: "the agent did not answer in time",
      },
    }),
  ),
  {
    method: "post",
    path: "/api/permissions/classify",
    summary: "Classify a tool call; a dangerous one becomes a pending request",
    tags: ["permissions"],
    auth: ["internalUser", "apiKey"],
    scope: "approvals:write",
    body: classifyBody,
    success: { status: 200, description: "the classification", schema: classifyAnswer },
    errors: { ...userErrors, 400: "bad body", ...apiKeyErrors, 404: "no such agent" },
  },
  {
    method: "get",
    path: "/api/permissions",
    summary: "Pending permission requests, oldest first",
    tags: ["permissions"],
    auth: ["internalUser", "apiKey"],
    scope: "approvals:read",
    query: listQuery,
    success: {
      status: 200,
      description: "`{pending, nextCursor}`",
      schema: z.object({ pending: z.array(permission), nextCursor: z.string().nullable() }),
    },
    errors: { ...userErrors, 400: "bad query", ...apiKeyErrors },
  },
  {
    method: "post",
    path: "/api/permissions",
    summary: "Decide a permission request",
    tags: ["permissions"],
    auth: ["internalUser", "apiKey"],
    scope: "approvals:write",
    body: decisionBody,
    success: {
      status: 200,
      description: "`{success, requestId, decision, tier}`",
      schema: z.object({
        success: z.boolean(),
        requestId: z.string(),
        decision: z.string(),
        tier: z.string(),
      }),
    },
    errors: {
      ...userErrors,
      400: "bad body",
      ...apiKeyErrors,
      404: "no such request",
    },
  },
  {
    method: "post",
    path: "/api/hooks/classify",
    summary: "An agent's pre-tool-use hook: classify a tool call (served ahead of Express: the hot path)",
    tags: ["hooks"],
    auth: ["gatewayToken"],
    body: hookClassifyBody,
    success: { status: 200, description: "the classification", schema: classifyAnswer },
    errors: {
      400: "bad JSON or body",
      401: "no Bearer or an unknown gateway token",
      403: "agentId is not the token's agent",
      413: "body over 1 MB",
      503: "DATA_ENCRYPTION_KEY is not configured",
    },
  },
  {
    method: "get",
    path: "/api/hooks/decision/{requestId}",
    summary: "An agent's long-poll for its user's decision (`?wait=` up to 55 s)",
    tags: ["hooks"],
    auth: ["gatewayToken"],
    query: decisionWaitQuery,
    success: {
      status: 200,
      description: "`{status, allow}`",
      schema: z.object({
        status: z.enum(["pending", "approved", "rejected", "expired"]),
        allow: z.boolean(),
      }),
    },
    errors: {
      400: "bad wait",
      401: "no Bearer or an unknown gateway token",
      404: "no such request",
      429: "too many waits",
    },
  },
  {
    method: "get",
    path: "/ws/permissions",
    summary: "WebSocket (upgrade): live permission requests and decisions of the user",
    description:
      "Not a plain HTTP route: a WebSocket upgrade. The socket proves it is `userId` by a ticket (`token`, " +
      "from the web's `GET /api/permissions/ws-ticket`) or the session cookie. Frames are JSON `{type, ...}`; " +
      "no `userId`: closed with 4001, no valid proof: closed with 4003.",
    tags: ["permissions"],
    auth: ["none", "session"],
    query: permissionSocketQuery,
    success: { status: 101, description: "switching protocols; events are JSON messages" },
  },
];

/** The document, built once. */
let built: OpenApiDocument | undefined;
export function backendOpenApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument({
    title: "Agent platform backend",
    version: "1.0.0",
    description: "The backend API (Express). Errors: `{error: code, message}`.",
    errorBody: backendErrorBody,
    operations: backendOperations,
  });
  return built;
}

/** `GET /openapi.json`. */
export function openApiRoutes(): Router {
  const router = Router();
  router.get("/openapi.json", (_req, res) => {
    res.json(backendOpenApiDocument());
  });
  return router;
}
