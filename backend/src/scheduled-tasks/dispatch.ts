/**
 * One dispatch of a scheduled task: its prompt to its agent through the runtime path chat uses (the agent's
 * stored URL and gateway token — read from its row by the claim — `POST /v1/chat/completions`, never a URL
 * a user supplied), 30 s timeout; an agent that is not `running`, or whose wrapper does not prove it is that
 * agent, is a failed dispatch and receives nothing.
 * Any 2xx is a success; a non-2xx answer, a timeout or a network error is a failure with its reason.
 */
import { GATEWAY_CHAT_TIMEOUT_MS, openAgentGateway, postChatCompletion } from "../chat/gateway";
import { runtimeFailureOf } from "../chat/provider-failure";
import type { TaskClaim } from "./sql";

export type DispatchResult = { ok: true } | { ok: false; error: string };

export interface DispatchDeps {
  dataEncryptionKey: string | undefined;
  /** Default 30 s. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** The runtime session of a scheduled task's runs. */
export function taskSessionOf(userId: string, taskId: string): string {
  return `platform:${userId}:task:${taskId}`;
}

/** The failure a 200 chat answer reports instead of a reply, or null (an answer that is not JSON is not one). */
function runtimeFailureIn(text: string): string | null {
  try {
    const body = JSON.parse(text) as {
      usage?: unknown;
      choices?: Array<{ message?: { content?: unknown } }>;
    };
    const reply = body.choices?.[0]?.message?.content;
    return typeof reply === "string" ? runtimeFailureOf(reply, body.usage) : null;
  } catch {
    return null;
  }
}

export async function dispatchTask(deps: DispatchDeps, task: TaskClaim): Promise<DispatchResult> {
  try {
    const gateway = openAgentGateway(deps.dataEncryptionKey, task.agentId, task.agent);
    const answer = await postChatCompletion(gateway, [{ role: "user", content: task.prompt }], {
      timeoutMs: deps.timeoutMs ?? GATEWAY_CHAT_TIMEOUT_MS,
      signal: deps.signal,
      // One runtime session per task: its runs share their context, apart from the user's chat.
      session: taskSessionOf(task.userId, task.id),
    });
    if (answer.status >= 200 && answer.status < 300) {
      // OpenClaw answers a run its provider failed as a 200 with the error as the reply.
      const failure = runtimeFailureIn(answer.text);
      return failure
        ? { ok: false, error: `the agent's run failed: ${failure.slice(0, 300)}` }
        : { ok: true };
    }
    return {
      ok: false,
      error: `the agent gateway answered HTTP ${answer.status}: ${answer.text.slice(0, 200)}`,
    };
  } catch (err) {
    return { ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}
