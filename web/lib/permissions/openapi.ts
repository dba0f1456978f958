import { type ApiOperation, jsonObject } from "@svc/common/openapi/index";
import { z } from "zod";
import { crossSite, session } from "../infra/openapi/responses";
import { decisionBody, pendingPageQuery, permissionSocketQuery } from "./inputs";

/** The permission routes relay to the backend. */
const permissionsBackendErrors = {
  502: "the backend answered an error status or an unexpected shape (`backend_error`)",
  503: "HMAC_SECRET or INTERNAL_API_KEY is not configured (`not_configured`)",
} as const;

/** Permission requests: the pending list, decisions and the live socket. */
export const permissionsOperations: readonly ApiOperation[] = [
  {
    method: "get",
    path: "/api/permissions",
    summary: "The user's pending permission requests",
    tags: ["permissions"],
    auth: ["session", "apiKey"],
    scope: "approvals:read",
    backendRoutes: ["GET /api/permissions"],
    query: pendingPageQuery,
    success: {
      status: 200,
      description: "`{pending, nextCursor}`",
      schema: z.object({ pending: z.array(jsonObject), nextCursor: z.string().nullable() }),
    },
    errors: { ...session, 400: "bad query", ...permissionsBackendErrors },
  },
  {
    method: "post",
    path: "/api/permissions",
    summary: "Decide a permission request",
    tags: ["permissions"],
    auth: ["session", "apiKey"],
    scope: "approvals:write",
    backendRoutes: ["POST /api/permissions"],
    body: decisionBody,
    success: {
      status: 200,
      description: "`{success, requestId, decision}`",
      schema: z.object({ success: z.boolean(), requestId: z.string(), decision: z.string() }).loose(),
    },
    errors: {
      ...session,
      ...crossSite,
      400: "bad body",
      404: "no such request",
      ...permissionsBackendErrors,
    },
  },
  {
    method: "get",
    path: "/api/permissions/ws-ticket",
    summary: "A 60 s ticket for the permission WebSocket (`/ws/permissions`)",
    tags: ["permissions"],
    auth: ["session", "apiKey"],
    scope: "approvals:write",
    success: {
      status: 200,
      description: "`{token, userId, expiresAt}`",
      schema: z.object({ token: z.string(), userId: z.string(), expiresAt: z.string() }),
    },
    errors: session,
  },
  {
    method: "get",
    path: "/ws/permissions",
    summary: "WebSocket (upgrade), relayed to the backend: live permission requests and decisions",
    description:
      "Not a plain HTTP route: web/server.ts relays the upgrade to the backend's `/ws/permissions`, " +
      "authenticated by the session cookie (same origin only) or a ticket from `/api/permissions/ws-ticket`.",
    tags: ["permissions"],
    auth: ["session"],
    backendRoutes: ["GET /ws/permissions"],
    query: permissionSocketQuery,
    success: { status: 101, description: "switching protocols" },
    errors: {
      403: "an upgrade from another site (an `Origin` not PUBLIC_URL's) without a ticket",
      502: "the backend cannot be reached",
    },
  },
];
