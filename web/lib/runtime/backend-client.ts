/**
 * The web's calls to the backend for runtime maintenance: agent operations (`/api/agents/:agentId/<op>`),
 * provisioning (`/api/platform-jobs/provision`) and the runtime version (`/api/runtime/version`). Every call
 * carries the internal key; calls made for a user also carry the signed user context (spec "Authentication").
 * The backend's address comes from configuration, not from users, so it does not pass the outbound URL guard.
 */
import { HttpError, userContextHeaders } from "@svc/common";
import type { WebConfig } from "../config";
import type { UserContextRole } from "../sessions/service";

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

/**
 * Calls the backend. Throws HttpError 502 `backend_unavailable` when it cannot be reached, does not answer
 * in time, or its answer cannot be read; any HTTP answer, whatever its status, is returned.
 */
export async function callBackend(config: BackendConfig, call: BackendCall): Promise<BackendAnswer> {
  const internalKey = config.INTERNAL_API_KEY;
  // The backend refuses every internal call while the key is unset; do not send an unauthenticated one.
  if (!internalKey) throw unavailable("INTERNAL_API_KEY is not configured");
  const headers: Record<string, string> = {
    accept: "application/json",
    authorization: `Bearer ${internalKey}`,
  };
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
  if (call.json !== undefined) headers["content-type"] = "application/json";
  let res: Response;
  try {
    res = await fetch(`${config.BACKEND_URL.replace(/\/+$/, "")}${call.path}`, {
      method: call.method,
      headers,
      body: call.json === undefined ? undefined : JSON.stringify(call.json),
      signal: AbortSignal.timeout(call.timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    throw unavailable(
      (err as Error).name === "TimeoutError"
        ? `the backend did not answer within ${call.timeoutMs / 1000} s`
        : "the backend is unreachable",
    );
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw unavailable("the backend's answer could not be read");
  }
  if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw unavailable("the backend's answer is too large");
  return { status: res.status, text };
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

function unavailable(message: string): HttpError {
  return new HttpError(502, "backend_unavailable", message);
}
