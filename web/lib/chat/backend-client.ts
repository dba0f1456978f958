/**
 * The web's client of the backend's platform-job queue (`POST {BACKEND_URL}/api/platform-jobs/chat`). The
 * backend's address comes from configuration, not from users, so the call does not pass the outbound URL
 * guard. Every call carries the internal key and the signed user context (spec "Authentication").
 */
import { userContextHeaders } from "@svc/common";
import type { WebConfig } from "../config";

/** How long the web waits for the backend to accept a job. */
export const BACKEND_ENQUEUE_TIMEOUT_MS = 10_000;
const MAX_ANSWER_BYTES = 256 * 1024;

/** The backend did not accept the job: unreachable, timed out, non-2xx, or an answer without a job. */
export class BackendQueueError extends Error {
  readonly status: number | null;

  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = "BackendQueueError";
    this.status = status;
  }
}

export interface ChatJobRequest {
  user: { id: string; email: string };
  agentId: string;
  gatewayUrl: string;
  message: string;
}

/** What the web needs from the backend's 202 `{success, queued, job}`. */
export interface QueuedJob {
  id: string;
  status: string;
}

/** Enqueues a `gateway_chat_completion` job; throws BackendQueueError unless the backend answers 2xx with a job. */
export async function enqueueChatJob(
  config: Pick<WebConfig, "BACKEND_URL" | "INTERNAL_API_KEY" | "HMAC_SECRET">,
  request: ChatJobRequest,
  timeoutMs = BACKEND_ENQUEUE_TIMEOUT_MS,
): Promise<QueuedJob> {
  const internalKey = config.INTERNAL_API_KEY;
  // The backend refuses every internal call while the key is unset; do not send an unauthenticated one.
  if (!internalKey) throw new BackendQueueError("INTERNAL_API_KEY is not configured");
  const url = `${config.BACKEND_URL.replace(/\/+$/, "")}/api/platform-jobs/chat`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        authorization: `Bearer ${internalKey}`,
        ...userContextHeaders(config.HMAC_SECRET ?? internalKey, {
          userId: request.user.id,
          userEmail: request.user.email,
          userRole: "user",
        }),
      },
      body: JSON.stringify({
        userId: request.user.id,
        agentId: request.agentId,
        gatewayUrl: request.gatewayUrl,
        message: request.message,
        systemPrompt: null,
      }),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "error",
    });
  } catch (err) {
    const reason = (err as Error).name === "TimeoutError" ? `timed out after ${timeoutMs} ms` : "unreachable";
    throw new BackendQueueError(`backend ${reason}`);
  }
  let text: string;
  try {
    text = await res.text();
  } catch {
    throw new BackendQueueError("backend answer could not be read", res.status);
  }
  if (!res.ok) throw new BackendQueueError(`backend answered ${res.status}`, res.status);
  if (Buffer.byteLength(text) > MAX_ANSWER_BYTES) throw new BackendQueueError("backend answer too large");
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    throw new BackendQueueError("backend answer is not JSON", res.status);
  }
  const job = typeof answer === "object" && answer !== null ? (answer as { job?: unknown }).job : undefined;
  const { id, status } = (typeof job === "object" && job !== null ? job : {}) as {
    id?: unknown;
    status?: unknown;
  };
  if (typeof id !== "string" || typeof status !== "string") {
    throw new BackendQueueError("backend answer has no job", res.status);
  }
  return { id, status };
}
