/**
 * The web's calls to the backend for runtime maintenance: agent operations (`/api/agents/:agentId/<op>`),
 * provisioning (`/api/platform-jobs/provision`) and the runtime version (`/api/runtime/version`). Every call
 * carries the internal key; calls made for a user also carry the signed user context.
 * The backend's address comes from configuration, not from users, so it does not pass the outbound URL guard.
 * This is the web's one signed client of the backend (the chat queue calls it too).
 */
import { createOutboundClient, type OutboundAnswer, OutboundError, userContextHeaders } from "@svc/common";
import type { WebConfig } from "../infra/config";
import type { UserContextRole } from "../sessions/service";
import { backendUnavailable } from "./errors";

/** Largest backend answer the web relays. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export type BackendConfig = Pick<WebConfig, "BACKEND_URL" | "INTERNAL_API_KEY" | "HMAC_SECRET">;

/** Who a backend call acts for; the role is `user` unless the session says otherwise (`userContextRole`). */
export interface BackendUser {
  id: string;
  email: string;
  contextRole?: UserContextRole;
}

export interface BackendCall {
  method: "GET" | "POST";
  /** Path on the backend, starting with `/`. */
  path: string;
  /** The user the call acts for: sent as signed `x-user-*` headers. */
  user?: BackendUser;
  /** JSON body (POST). */
  json?: unknown;
  timeoutMs: number;
}

/** The backend's answer: its status and its body text (JSON, or empty). */
export interface BackendAnswer {
  status: number;
  text: string;
}

/** The internal key is unset: the backend refuses every internal call, so none is sent. */
export class BackendNotConfiguredError extends Error {
  constructor() {
    super("INTERNAL_API_KEY is not configured");
    this.name = "BackendNotConfiguredError";
  }
}

/** The one client of the backend: configured address (no URL guard), redirects refused, answers capped. */
const backendClient = createOutboundClient({
  name: "the backend",
  maxResponseBytes: MAX_ANSWER_BYTES,
  headers: { accept: "application/json" },
});

/**
 * The one signed call to the backend: the internal key, and for a user the `x-user-*` context signed with
 * HMAC_SECRET, else INTERNAL_API_KEY. Any HTTP answer is returned; a failure is an
 * OutboundError naming the backend, or BackendNotConfiguredError.
 */
export async function requestBackend(
  config: BackendConfig,
  call: BackendCall & { maxResponseBytes?: number },
): Promise<OutboundAnswer> {
  const internalKey = config.INTERNAL_API_KEY;
  if (!internalKey) throw new BackendNotConfiguredError();
  const headers: Record<string, string> = { authorization: `Bearer ${internalKey}` };
  if (call.user) {
    Object.assign(
      headers,
      userContextHeaders(config.HMAC_SECRET || internalKey, {
        userId: call.user.id,
        userEmail: call.user.email,
        userRole: call.user.contextRole ?? "user",
      }),
    );
  }
  return backendClient.request({
    method: call.method,
    url: `${config.BACKEND_URL.replace(/\/+$/, "")}${call.path}`,
    headers,
    json: call.json,
    timeoutMs: call.timeoutMs,
    maxResponseBytes: call.maxResponseBytes,
  });
}

/**
 * Calls the backend. Throws HttpError 502 `backend_unavailable` when it cannot be reached, does not answer
 * in time, or its answer cannot be read; any HTTP answer, whatever its status, is returned.
 */
export async function callBackend(config: BackendConfig, call: BackendCall): Promise<BackendAnswer> {
  try {
    const res = await requestBackend(config, call);
    return { status: res.status, text: res.text };
  } catch (err) {
    if (err instanceof BackendNotConfiguredError) throw backendUnavailable(err.message);
    if (!(err instanceof OutboundError)) throw err;
    switch (err.reason) {
      case "timeout":
        throw backendUnavailable(`the backend did not answer within ${call.timeoutMs / 1000} s`);
      case "too_large":
        throw backendUnavailable("the backend's answer is too large");
      default:
        throw backendUnavailable("the backend is unreachable");
    }
  }
}

/** The answer's body as JSON, or undefined when it is empty or not JSON. */
export function answerJson(answer: BackendAnswer): unknown {
  if (answer.text.trim() === "") return undefined;
  try {
    return JSON.parse(answer.text);
  } catch {
    return undefined;
  }
}
