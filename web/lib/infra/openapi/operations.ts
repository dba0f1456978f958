/**
 * The web's routes for its OpenAPI document: one entry per `app/**\/route.ts` method, with the zod schemas
 * the route validates with. A new route adds its entry here; `openapi.test.ts` fails until it does.
 */
import {
  type ApiOperation,
  agentOperations,
  backendErrorBody,
  jsonObject,
  metricsOperation,
  openApiDocumentOperation,
} from "@svc/common/openapi/index";
import { z } from "zod";
import { loginSchema, registerSchema, verifyEmailQuery } from "../../accounts/inputs";
import { accountsOperations } from "../../accounts/openapi";
import { agentsOperations } from "../../agents/openapi";
import { createApiKeyBody } from "../../apikeys/inputs";
import { boardOperations } from "../../board/openapi";
import { buddiesOperations } from "../../buddies/openapi";
import { chainOperations } from "../../chain/openapi";
import { chatMessageBody } from "../../chat/inputs";
import { filesOperations } from "../../files/openapi";
import { gatewayOperations } from "../../gateway/openapi";
import { agentIdQuery, heartbeatBody } from "../../heartbeat/inputs";
import { callbackQuerySchema } from "../../idp/inputs";
import { initDeepOperations } from "../../initdeep/openapi";
import { partnersOperations } from "../../partners/openapi";
import { authOptionsBody, authVerifyBody, passkeyIdParam, registerVerifyBody } from "../../passkeys/inputs";
import { decisionBody, pendingPageQuery, permissionSocketQuery } from "../../permissions/inputs";
import { personaOperations } from "../../persona/openapi";
import { jobsOperations } from "../../platform-jobs/openapi";
import { radioOperations } from "../../radio/openapi";
import { logsQuery, maintenanceBody, provisionBody } from "../../runtime/inputs";
import { tasksOperations } from "../../scheduled-tasks/openapi";
import { setupOperations } from "../../setup/openapi";
import { skillsOperations } from "../../skills/openapi";
import { socialOperations } from "../../social/openapi";
import { walletsOperations } from "../../wallets/openapi";
import { hostingEventBody } from "../../webhooks/inputs";
import { withSharedResponses } from "./shared";

const session = { 401: "not signed in" } as const;
const crossSite = { 403: "a state-changing request from another site" } as const;
const ok = z.object({ ok: z.literal(true) });
const apiKey = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: "ApiKey" });
const redirect = (description: string) => ({ status: 302, description });

/** The permission routes relay to the backend. */
const permissionsBackendErrors = {
  502: "the backend answered an error status or an unexpected shape (`backend_error`)",
  503: "HMAC_SECRET or INTERNAL_API_KEY is not configured (`not_configured`)",
} as const;

/** The runtime routes pass the backend's answer through, its errors in the backend's shape. */
const runtimeErrors = {
  ...session,
  ...crossSite,
  400: "bad input",
  404: "the user has no agent",
  502: "the backend could not be reached",
  503: "runtime controls are off, or the backend is not configured",
} as const;

/** The table; each entry gets the shared 403 and 413 its route answers from ./shared.ts. */
const operations: readonly ApiOperation[] = [
  ...agentsOperations,
  ...jobsOperations,
  ...filesOperations,
  ...boardOperations,
  ...buddiesOperations,
  ...socialOperations,
  ...partnersOperations,
  ...chainOperations,
  ...walletsOperations,
  ...radioOperations,
  ...accountsOperations,
  openApiDocumentOperation("/api/openapi.json"),
  metricsOperation,
  {
    method: "get",
    path: "/docs",
    summary: "This document, rendered by Swagger UI (HTML)",
    tags: ["meta"],
    auth: ["none"],
    success: { status: 200, description: "the viewer page", schema: z.string(), contentType: "text/html" },
  },
  {
    method: "get",
    path: "/docs/assets/{file}",
    summary: "The viewer's own scripts and styles (from swagger-ui-dist)",
    tags: ["meta"],
    auth: ["none"],
    success: {
      status: 200,
      description: "the file",
      schema: z.string(),
      contentType: "application/javascript",
    },
    errors: { 404: "not one of the viewer's files" },
  },
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
    path: "/api/auth/csrf",
    summary: "A CSRF token (`{token, signed, header}`) plus its double-submit cookie",
    tags: ["auth"],
    auth: ["none"],
    success: {
      status: 200,
      description: "the token",
      schema: z.object({ token: z.string(), signed: z.string(), header: z.string() }),
    },
  },
  {
    method: "post",
    path: "/api/register",
    summary: "Create an account (no session)",
    tags: ["auth"],
    auth: ["none"],
    body: registerSchema,
    success: {
      status: 201,
      description:
        "`{id, email, name}`; no session, only the `svc-signup` cookie (1 hour, sent to the confirmation link alone) that lets the link sign this browser in",
      schema: z.object({ id: z.string(), email: z.string(), name: z.string().nullable() }),
    },
    errors: {
      400: "bad body",
      403: "another site's request, or a browser that looks like a bot",
      409: "the email is taken",
      429: "too many sign-ups from this address",
    },
  },
  {
    method: "post",
    path: "/api/auth/login",
    summary: "Sign in with a password (CSRF header required); sets the session cookie",
    tags: ["auth"],
    auth: ["none"],
    body: loginSchema,
    success: {
      status: 200,
      description: "`{ok: true, user: {id, name}}`",
      schema: z.object({
        ok: z.literal(true),
        user: z.object({ id: z.string(), name: z.string().nullable() }),
      }),
    },
    errors: {
      ...crossSite,
      400: "bad body",
      401: "wrong email or password",
      403: "another site's request, or a bad CSRF token",
      429: "too many",
    },
  },
  {
    method: "get",
    path: "/api/auth/session",
    summary: "The signed-in user, or `{user: null}` (always 200)",
    tags: ["auth"],
    auth: ["none", "session"],
    success: { status: 200, description: "`{user}`", schema: z.object({ user: jsonObject.nullable() }) },
  },
  {
    method: "post",
    path: "/api/auth/signout",
    summary: "Delete the session and clear the cookie",
    tags: ["auth"],
    auth: ["none", "session"],
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: crossSite,
  },
  {
    method: "get",
    path: "/api/auth/verify-email",
    summary: "The link of the verification mail; redirects to a page that says what happened",
    tags: ["auth"],
    auth: ["none", "session"],
    query: verifyEmailQuery,
    success: redirect(
      "to `/dashboard?verified=1` when the browser is signed in as the account or is the one that signed up (its `svc-signup` cookie: a session is set), else `/login?verified=1`; a bad, used or expired link to `/login?error=VerificationFailed`",
    ),
  },
  {
    method: "post",
    path: "/api/auth/verify-email",
    summary: "Mail the signed-in account a fresh verification link (the earlier links stop working)",
    tags: ["auth"],
    auth: ["session"],
    success: {
      status: 200,
      description: "`{sent: true, email}`",
      schema: z.object({ sent: z.literal(true), email: z.string() }),
    },
    errors: { ...session, ...crossSite, 409: "the email is already confirmed", 429: "more than 3 an hour" },
  },
  {
    method: "get",
    path: "/api/auth/idp",
    summary: "Start signing in with the identity provider",
    tags: ["auth"],
    auth: ["none"],
    query: z.object({
      next: z
        .string()
        .optional()
        .meta({ description: "a path of this site to return to after signing in (default `/dashboard`)" }),
    }),
    success: redirect("to the provider, or `/login?error=IdpNotConfigured`"),
  },
  {
    method: "get",
    path: "/api/auth/idp/callback",
    summary: "The identity provider's redirect back; sets the session cookie",
    tags: ["auth"],
    auth: ["none"],
    query: callbackQuerySchema,
    // An account claimed by the sign-in gets new gateway tokens for the agents it took over.
    backendRoutes: ["POST /api/agents/{agentId}/heal-token"],
    success: redirect("to the `next` page (default `/dashboard`) with a session, or `/login?error=<code>`"),
  },
  {
    method: "post",
    path: "/api/passkey/register/options",
    summary: "Options for `navigator.credentials.create`",
    tags: ["passkeys"],
    auth: ["session"],
    success: {
      status: 200,
      description: "`{options, challenge}`",
      schema: z.object({ options: jsonObject, challenge: z.string() }),
    },
    errors: { ...session, ...crossSite },
  },
  {
    method: "post",
    path: "/api/passkey/register/verify",
    summary: "Store the new passkey",
    tags: ["passkeys"],
    auth: ["session"],
    body: registerVerifyBody,
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: { ...session, ...crossSite, 400: "bad body or a failed verification" },
  },
  {
    method: "post",
    path: "/api/passkey/auth/options",
    summary: "Options for `navigator.credentials.get`",
    tags: ["passkeys"],
    auth: ["none"],
    body: authOptionsBody,
    success: { status: 200, description: "`{options, challenge}`", schema: jsonObject },
    errors: {
      ...crossSite,
      400: "bad body",
      404: "no account with a passkey for this identifier",
      429: "too many",
    },
  },
  {
    method: "post",
    path: "/api/passkey/auth/verify",
    summary: "Sign in with a passkey; sets the session cookie",
    tags: ["passkeys"],
    auth: ["none"],
    body: authVerifyBody,
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: {
      ...crossSite,
      400: "bad body",
      401: "the assertion does not verify",
      404: "the passkey is not recognized (`passkey_not_found`)",
    },
  },
  {
    method: "get",
    path: "/api/passkeys",
    summary: "The user's passkeys",
    tags: ["passkeys"],
    auth: ["session"],
    success: {
      status: 200,
      description: "`{passkeys}`",
      schema: z.object({ passkeys: z.array(jsonObject) }),
    },
    errors: session,
  },
  {
    method: "delete",
    path: "/api/passkeys/{id}",
    summary: "Remove one of the user's passkeys",
    tags: ["passkeys"],
    auth: ["session"],
    params: z.object({ id: passkeyIdParam }),
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: { ...session, ...crossSite, 404: "no such passkey of this user" },
  },
  {
    method: "get",
    path: "/api/trial",
    summary: "The user's trial",
    tags: ["account"],
    auth: ["session", "apiKey"],
    scope: "billing:read",
    success: {
      status: 200,
      description: "`{active, startedAt, endsAt, daysRemaining}`",
      schema: z.object({ active: z.boolean() }).loose(),
    },
    errors: session,
  },
  {
    method: "get",
    path: "/api/keys",
    summary: "The user's active API keys, newest first",
    tags: ["api keys"],
    auth: ["session"],
    success: { status: 200, description: "`{keys}`", schema: z.object({ keys: z.array(apiKey) }) },
    errors: session,
  },
  {
    method: "post",
    path: "/api/keys",
    summary: "Create an API key (the raw key is shown this once)",
    tags: ["api keys"],
    auth: ["session"],
    body: createApiKeyBody,
    success: {
      status: 201,
      description: "the key with its raw `key`",
      schema: apiKey.omit({ lastUsedAt: true }).extend({ key: z.string() }),
    },
    errors: { ...session, ...crossSite, 400: "bad body", 429: "the limit of active keys is reached" },
  },
  {
    method: "get",
    path: "/api/keys/{id}",
    summary: "One of the user's API keys",
    tags: ["api keys"],
    auth: ["session"],
    success: { status: 200, description: "`{key}`", schema: z.object({ key: apiKey }) },
    errors: { ...session, 404: "no such key of this user" },
  },
  {
    method: "delete",
    path: "/api/keys/{id}",
    summary: "Revoke one of the user's API keys",
    tags: ["api keys"],
    auth: ["session"],
    success: { status: 200, description: "`{ok: true}`", schema: ok },
    errors: { ...session, ...crossSite, 404: "no such key of this user" },
  },
  {
    method: "post",
    path: "/api/provision",
    summary: "Create or re-provision the user's agent (a queued job)",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "agent:write",
    body: provisionBody,
    backendRoutes: ["POST /api/platform-jobs/provision"],
    success: { status: 202, description: "the queued job", schema: jsonObject },
    errors: {
      ...session,
      400: "bad body",
      403: "a state-changing request from another site, or `email_not_verified` (the account's email is not confirmed)",
      502: "the backend could not be reached",
    },
  },
  {
    method: "get",
    path: "/api/jobs/{jobId}",
    summary: "One of the user's jobs, as the backend shows it",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "jobs:read",
    success: { status: 200, description: "`{job}`", schema: z.object({ job: jsonObject }) },
    errors: { ...session, 404: "no such job of this user" },
  },
  {
    method: "post",
    path: "/api/gateway/chat",
    summary: "Send a chat message to the user's newest agent (a queued job)",
    tags: ["agents"],
    auth: ["session", "apiKey"],
    scope: "chat:write",
    body: chatMessageBody,
    backendRoutes: ["POST /api/platform-jobs/chat"],
    success: {
      status: 202,
      description: "`{success, queued, jobId, status, agentId, agentName}`",
      schema: z.object({ success: z.boolean(), queued: z.boolean(), jobId: z.string() }).loose(),
    },
    errors: {
      ...session,
      400: "bad body",
      403: "a state-changing request from another site, or `email_not_verified` (the account's email is not confirmed)",
      404: "the user has no agent",
      429: "too many chats in flight",
      502: "the backend could not be reached",
      503: "no gateway token is available for the agent (`no_gateway_token`)",
    },
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
  ...(["get", "put", "delete"] as const).map(
    (method): ApiOperation => ({
      method,
      path: "/api/heartbeat",
      summary: {
        get: "Heartbeat settings",
        put: "Change heartbeat settings",
        delete: "Turn the heartbeat off",
      }[method],
      tags: ["agents"],
      auth: ["session", "apiKey"],
      scope: method === "get" ? "agent:read" : "agent:write",
      query: z.object({ agentId: agentIdQuery }),
      ...(method === "put" ? { body: heartbeatBody } : {}),
      success: { status: 200, description: "the settings and where they live", schema: jsonObject },
      errors: {
        ...session,
        ...(method === "get" ? session : crossSite),
        400: "bad input",
        404: "not the user's agent",
      },
    }),
  ),
  {
    method: "get",
    path: "/api/permissions",
    summary: "The user's pending permission requests",
    tags: ["permissions"],
    auth: ["session", "apiKey"],
    scope: "approvals:read",
    query: pendingPageQuery,
    backendRoutes: ["GET /api/permissions"],
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
    body: decisionBody,
    backendRoutes: ["POST /api/permissions"],
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
    query: permissionSocketQuery,
    backendRoutes: ["GET /ws/permissions"],
    success: { status: 101, description: "switching protocols" },
    errors: {
      403: "an upgrade from another site (an `Origin` not PUBLIC_URL's) without a ticket",
      502: "the backend cannot be reached",
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
  {
    method: "post",
    path: "/api/security/risc",
    summary: "The identity provider's security event token (cross-site; the signature authenticates it)",
    tags: ["auth"],
    auth: ["none"],
    body: z.string().meta({ description: "the raw security event token (JWT), at most 64 KB" }),
    bodyType: "application/secevent+jwt",
    success: {
      status: 202,
      description: "`{ok: true}` (`duplicate: true` on replay)",
      schema: z.object({ ok: z.literal(true), duplicate: z.boolean().optional() }),
    },
    errors: {
      400: "the token does not verify",
      413: "over 64 KB",
      502: "the provider's signing keys could not be fetched (`signing_keys_unavailable`)",
    },
  },
  {
    method: "post",
    path: "/api/webhooks/hosting",
    summary: "The hosting platform's events (cross-site; the shared secret authenticates them)",
    tags: ["webhooks"],
    auth: ["webhookSecret"],
    body: hostingEventBody,
    success: {
      status: 200,
      description: "`{ok: true, event, record, stored}`",
      schema: z.object({ ok: z.literal(true) }).loose(),
    },
    errors: { 400: "not a JSON object", 401: "bad or missing secret", 503: "HOSTING_WEBHOOK_SECRET unset" },
  },
  ...gatewayOperations,
  ...tasksOperations,
  ...skillsOperations,
  ...initDeepOperations,
  ...personaOperations,
  ...setupOperations,
];

export const webOperations: readonly ApiOperation[] = operations.map(withSharedResponses);
