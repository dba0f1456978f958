/**
 * The web's client of the backend's platform-job queue (`POST {BACKEND_URL}/api/platform-jobs/chat`). The
 * backend's address comes from configuration, not from users, so the call does not pass the outbound URL
 * guard. It goes through the web's one signed backend client (`runtime/backend-client.ts`): the internal
 * key and the user context signed with HMAC_SECRET, else INTERNAL_API_KEY.
 */
import { type OutboundAnswer, OutboundError } from "@svc/common";
import type { WebConfig } from "../infra/config";
import { BackendNotConfiguredError, requestBackend } from "../runtime/backend-client";

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
  let res: OutboundAnswer;
  try {
    res = await requestBackend(config, {
      method: "POST",
      path: "/api/platform-jobs/chat",
      user: { id: request.user.id, email: request.user.email },
      json: {
        userId: request.user.id,
        agentId: request.agentId,
        gatewayUrl: request.gatewayUrl,
        message: request.message,
        systemPrompt: null,
      },
      timeoutMs,
      maxResponseBytes: MAX_ANSWER_BYTES,
    });
  } catch (err) {
    if (err instanceof BackendNotConfiguredError) throw new BackendQueueError(err.message);
    if (!(err instanceof OutboundError)) throw err;
    if (err.reason === "too_large") throw new BackendQueueError("backend answer too large");
    throw new BackendQueueError(
      `backend ${err.reason === "timeout" ? `timed out after ${timeoutMs} ms` : "unreachable"}`,
    );
  }
  if (!res.ok) throw new BackendQueueError(`backend answered ${res.status}`, res.status);
  const text = res.text;
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
