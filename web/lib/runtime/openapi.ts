import { type ApiOperation, agentOperations, backendErrorBody, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, session } from "../infra/openapi/responses";
import { logsQuery, maintenanceBody, provisionBody } from "./inputs";

/** The runtime routes pass the backend's answer through, its errors in the backend's shape. */
const runtimeErrors = {
  ...session,
  ...crossSite,
  400: "bad input",
  404: "the user has no agent",
  502: "the backend could not be reached",
  503: "runtime controls are off, or the backend is not configured",
} as const;

/** Provisioning the user's agent and `/api/runtime/*`. */
export const runtimeOperations: readonly ApiOperation[] = [
  {
    method: "post",
    path: "/api/provision",
    summary: "Create or re-provision the user's agent (a queued job)",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "agent:write",
    backendRoutes: ["POST /api/platform-jobs/provision"],
    body: provisionBody,
    success: { status: 202, description: "the queued job", schema: jsonObject },
    errors: {
      ...session,
      400: "bad body",
      403: "a state-changing request from another site, or `email_not_verified` (the account's email is not confirmed)",
      502: "the backend could not be reached",
    },
  },
  ...(
    [
      ["/api/runtime-version", "getApiRuntimeVersion"],
      // The same answer under the backend's path; its default operationId would be the one above.
      ["/api/runtime/version", "getApiRuntimeSlashVersion"],
    ] as const
  ).map(
    ([path, operationId]): ApiOperation => ({
      method: "get",
      path,
      operationId,
      summary: "The runtime version the platform deploys (fallback: RUNTIME_IMAGE)",
      tags: ["runtime"],
      auth: ["none"],
      backendRoutes: ["GET /api/runtime/version"],
      success: { status: 200, description: "the version", schema: jsonObject },
    }),
  ),
  {
    method: "get",
    path: "/api/runtime/controls",
    summary: "Whether lifecycle controls are on (`{enabled}`)",
    tags: ["runtime"],
    auth: ["session", "apiKey"],
    scope: "agent:read",
    success: { status: 200, description: "`{enabled}`", schema: z.object({ enabled: z.boolean() }) },
    errors: session,
    errorBody: backendErrorBody,
  },
  ...agentOperations({
    path: (name) => `/api/runtime/${name}`,
    tags: ["runtime"],
    auth: ["session", "apiKey"],
    logsQuery,
    maintenanceBody,
    get: {
      summary: (name) => `The user's newest agent: ${name} (the backend's answer)`,
      success: () => "the backend's answer",
      errors: () => runtimeErrors,
    },
    post: {
      summary: (name) => `The user's newest agent: ${name} (the backend's answer)`,
      success: () => "the backend's answer",
      errors: () => runtimeErrors,
    },
    errorBody: backendErrorBody,
  }).map(
    // Reading the agent is agent:read; its gateway token (which controls it) and every change, agent:write.
    (op): ApiOperation => ({
      ...op,
      scope: op.method === "get" && op.path !== "/api/runtime/gateway-token" ? "agent:read" : "agent:write",
      backendRoutes: [`${op.method.toUpperCase()} /api/agents/{agentId}/${op.path.split("/").pop()}`],
    }),
  ),
];
