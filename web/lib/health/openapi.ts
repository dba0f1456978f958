import { type ApiOperation, jsonObject } from "@svc/common/openapi/index";
import { session } from "../infra/openapi/responses";

/** The health area's routes: the web's own, the platform services' and the user's agent's. */
export const healthOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/health",
    summary: "Web health from CPU and memory (always 200)",
    tags: ["health"],
    auth: ["none"],
    success: { status: 200, description: "`{health, ...}`", schema: jsonObject },
  },
  {
    method: "get",
    path: "/api/health/dashboard",
    summary: "The platform's internal services, for the dashboard (always 200)",
    tags: ["health"],
    auth: ["session", "apiKey"],
    scope: "agent:read",
    backendRoutes: ["GET /health"],
    success: { status: 200, description: "each service's health", schema: jsonObject },
    errors: session,
  },
  {
    method: "get",
    path: "/api/gateway/status",
    summary: "Health, sessions and cron of the user's newest agent",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "agent:read",
    success: { status: 200, description: "`{health, healthDetail, sessions, cron}`", schema: jsonObject },
    errors: session,
  },
];
