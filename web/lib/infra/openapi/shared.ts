/**
 * The responses every web operation shares because of the code every route goes through, added by one rule
 * (`withSharedResponses`) instead of by hand: 403 where `route()` and the runtime routes refuse another site's
 * state-changing request (../http/origin.ts; unless `allowCrossSite`: CROSS_SITE_ROUTES); 413 where the body
 * reader refuses a body over the route's limit (MAX_BODY_BYTES, or BODY_LIMITS); the 401/403 of the auth
 * declaration. An entry that already describes a status keeps its description (the auth refusals are added
 * to it). `openapi.test.ts` checks both lists against the route files.
 */
import type { ApiOperation, HttpMethod } from "@svc/common/openapi/index";
import { MAX_BODY_BYTES, MAX_PUBLIC_BODY_BYTES } from "../http/body";

const STATE_CHANGING: ReadonlySet<HttpMethod> = new Set(["post", "put", "patch", "delete"]);

/** `POST /api/x`: how the lists below name an operation. */
export function operationKey(op: Pick<ApiOperation, "method" | "path">): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

/** The routes that accept state-changing requests from other sites: `route(..., { allowCrossSite: true })`. */
export const CROSS_SITE_ROUTES: ReadonlySet<string> = new Set([
  "POST /api/security/risc",
  "POST /api/webhooks/hosting",
  "POST /api/webhooks/stripe",
]);

/** The `maxBytes` a route passes to the body reader, where it is not MAX_BODY_BYTES. */
export const BODY_LIMITS: Readonly<Record<string, number>> = {
  "POST /api/register": MAX_PUBLIC_BODY_BYTES,
  "POST /api/auth/login": MAX_PUBLIC_BODY_BYTES,
  "POST /api/auth/forgot-password": MAX_PUBLIC_BODY_BYTES,
  "POST /api/auth/reset-password": MAX_PUBLIC_BODY_BYTES,
  "POST /api/passkey/auth/options": MAX_PUBLIC_BODY_BYTES,
  "POST /api/passkey/auth/verify": MAX_PUBLIC_BODY_BYTES,
  "POST /api/partner": MAX_PUBLIC_BODY_BYTES,
  "POST /api/security/risc": MAX_PUBLIC_BODY_BYTES,
  "POST /api/gateway/chat": 160 * 1024,
  "POST /api/webhooks/hosting": 256 * 1024,
  "POST /api/webhooks/stripe": 256 * 1024,
};

/** The largest body the operation's route reads. */
export function bodyLimit(op: Pick<ApiOperation, "method" | "path">): number {
  return BODY_LIMITS[operationKey(op)] ?? MAX_BODY_BYTES;
}

/** Whether the route refuses a state-changing request from another site (403 `cross_site_request`). */
export function refusesCrossSite(op: Pick<ApiOperation, "method" | "path">): boolean {
  return STATE_CHANGING.has(op.method) && !CROSS_SITE_ROUTES.has(operationKey(op));
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes / 1024} KB`;
}

type ErrorEntry = NonNullable<ApiOperation["errors"]>[number];

/** An error status's description with another case of it added. */
function alsoWhen(entry: ErrorEntry | undefined, when: string): ErrorEntry {
  if (entry === undefined) return when;
  if (typeof entry === "string") return `${entry}; or ${when}`;
  return { ...entry, description: `${entry.description}; or ${when}` };
}

/** Whether the operation takes a signed-in session and nothing else (account, API key, passkey, password). */
export function isSessionOnly(op: Pick<ApiOperation, "auth">): boolean {
  return op.auth.length === 1 && op.auth[0] === "session";
}

/**
 * The operation with the shared 403 and 413 added where its route answers them (see above), and the
 * refusals of its auth declaration (../../sessions/require.ts): for one an API key reaches, 401 for a key that
 * is unknown, revoked or expired and 403 for a key without its scope; for a session-only one, 403 for a key.
 */
export function withSharedResponses(op: ApiOperation): ApiOperation {
  const errors = { ...op.errors };
  if (refusesCrossSite(op))
    errors[403] ??= "a state-changing request from another site (`cross_site_request`)";
  if (op.body) errors[413] ??= `a body over ${formatBytes(bodyLimit(op))} (\`payload_too_large\`)`;
  if (op.auth.includes("apiKey") && op.scope) {
    errors[401] = alsoWhen(errors[401], "an API key that is unknown, deleted or expired (`api_key_expired`)");
    errors[403] = alsoWhen(
      errors[403],
      `an API key without the \`${op.scope}\` scope (\`insufficient_scope\`)`,
    );
  } else if (isSessionOnly(op) && op.path.startsWith("/api/")) {
    errors[403] = alsoWhen(
      errors[403],
      "an API key: this route takes a signed-in session only (`api_key_not_allowed`)",
    );
  }
  return Object.keys(errors).length > 0 ? { ...op, errors } : op;
}
