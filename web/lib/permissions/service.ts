/**
 * The web's permission endpoints: a proxy to the backend's `GET/POST /api/permissions` (internal key + signed
 * user context, through the runtime's backend client) and the issuer of the WebSocket tickets. The backend's
 * 400 and 404 pass through with its code and message; any other failure of the backend (unreachable, timed
 * out, 401/403 from a key mismatch, 5xx, a wrong shape) is 502, so a browser never mistakes a platform
 * misconfiguration for its own session ending.
 */
import { PERMISSION_TICKET_TTL_MS, signPermissionTicket } from "@svc/common";
import type { WebContext } from "../infra/context";
import { answerJson, type BackendAnswer, type BackendUser, callBackend } from "../runtime/backend-client";
import {
  backendAnswered,
  invalidRequest,
  notConfigured,
  requestNotFound,
  unexpectedBackendAnswer,
} from "./errors";
import type { DecisionBody, PendingPageQuery } from "./inputs";

/** Both calls are single indexed queries on the backend. */
export const PERMISSIONS_TIMEOUT_MS = 10_000;

type User = BackendUser;

/**
 * `{pending: [permission request], nextCursor}` of the user (optionally of one agent), one page as the
 * backend lists it (`limit` default 50, max 100; `cursor` from the previous page's `nextCursor`).
 */
export async function listPendingPermissions(
  ctx: WebContext,
  user: User,
  page: PendingPageQuery = {},
): Promise<{ pending: unknown[]; nextCursor: string | null }> {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(page)) if (value !== undefined) params.set(key, String(value));
  const query = params.size === 0 ? "" : `?${params}`;
  const answer = await callBackend(ctx.config, {
    method: "GET",
    path: `/api/permissions${query}`,
    user,
    timeoutMs: PERMISSIONS_TIMEOUT_MS,
  });
  const body = successBody(answer) as { pending?: unknown; nextCursor?: unknown };
  if (!Array.isArray(body.pending)) throw unexpectedBackendAnswer();
  const nextCursor = typeof body.nextCursor === "string" ? body.nextCursor : null;
  return { pending: body.pending, nextCursor };
}

/** Records the user's decision through the backend; the web's answer omits the backend's `tier`. */
export async function decidePermission(
  ctx: WebContext,
  user: User,
  body: DecisionBody,
): Promise<{ success: boolean; requestId: string; decision: string }> {
  const answer = await callBackend(ctx.config, {
    method: "POST",
    path: "/api/permissions",
    user,
    // feedback and modifiedInput are accepted from clients but the backend does not use them.
    json: { requestId: body.requestId, decision: body.decision },
    timeoutMs: PERMISSIONS_TIMEOUT_MS,
  });
  const { success, requestId, decision } = successBody(answer) as Record<string, unknown>;
  if (typeof success !== "boolean" || typeof requestId !== "string" || typeof decision !== "string") {
    throw unexpectedBackendAnswer();
  }
  return { success, requestId, decision };
}

export interface PermissionTicket {
  /** The `token` query parameter of `ws://HOST/ws/permissions?userId=<userId>&token=<token>`. */
  token: string;
  userId: string;
  /** ISO 8601; the ticket opens sockets until then (60 s). */
  expiresAt: string;
}

/**
 * A WebSocket ticket for the user's session (or API key: `credentialId` is either's id), signed with the key
 * the backend verifies it with; 503 without one. The socket it opens closes when that session ends (the key
 * is deleted or expires).
 */
export function issuePermissionTicket(
  ctx: WebContext,
  user: Pick<User, "id">,
  credentialId: string,
): PermissionTicket {
  const secret = ctx.config.HMAC_SECRET || ctx.config.INTERNAL_API_KEY;
  if (!secret) throw notConfigured();
  const expiresAtMs = ctx.clock.now().getTime() + PERMISSION_TICKET_TTL_MS;
  return {
    token: signPermissionTicket(secret, user.id, credentialId, expiresAtMs),
    userId: user.id,
    expiresAt: new Date(expiresAtMs).toISOString(),
  };
}

/** The JSON object of a 2xx answer; the backend's 400/404 as they are; anything else 502. */
function successBody(answer: BackendAnswer): object {
  const json = answerJson(answer);
  const fields = typeof json === "object" && json !== null ? (json as Record<string, unknown>) : {};
  if (answer.status === 400 || answer.status === 404) {
    const code = typeof fields.error === "string" ? fields.error : undefined;
    const message = typeof fields.message === "string" ? fields.message : undefined;
    throw answer.status === 404 ? requestNotFound(code, message) : invalidRequest(code, message);
  }
  if (answer.status < 200 || answer.status > 299) throw backendAnswered(answer.status);
  if (typeof json !== "object" || json === null) throw unexpectedBackendAnswer();
  return json;
}
