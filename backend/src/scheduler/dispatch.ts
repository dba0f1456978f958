/**
 * One dispatch of a scheduled task: its prompt to its agent through the runtime path chat uses (the agent's
 * stored URL and gateway token — read from its row by the claim — `POST /v1/chat/completions`, never a URL
 * a user supplied), 30 s timeout.
 * Any 2xx is a success; a non-2xx answer, a timeout or a network error is a failure with its reason.
 */
import { GATEWAY_CHAT_TIMEOUT_MS, openAgentGateway, postChatCompletion } from "../chat/gateway";
import type { TaskClaim } from "./sql";

export type DispatchResult = { ok: true } | { ok: false; error: string };

export interface DispatchDeps {
  dataEncryptionKey: string | undefined;
  /** Default 30 s (spec "Limits"). */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export async function dispatchTask(deps: DispatchDeps, task: TaskClaim): Promise<DispatchResult> {
  try {
    const gateway = openAgentGateway(deps.dataEncryptionKey, task.agentId, task.agent);
    const answer = await postChatCompletion(gateway, [{ role: "user", content: task.prompt }], {
      timeoutMs: deps.timeoutMs ?? GATEWAY_CHAT_TIMEOUT_MS,
      signal: deps.signal,
    });
    if (answer.status >= 200 && answer.status < 300) return { ok: true };
    return {
      ok: false,
      error: `the agent gateway answered HTTP ${answer.status}: ${answer.text.slice(0, 200)}`,
    };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
