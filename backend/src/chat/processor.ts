import type { Database } from "@svc/db";
import type { JobProcessor } from "../jobs/types";
import { agentGateway, type ChatMessage, postChatCompletion } from "./gateway";

export interface ChatProcessorDeps {
  db: Database;
  /** DATA_ENCRYPTION_KEY: opens the agent's stored gateway token. */
  dataEncryptionKey: string | undefined;
  timeoutMs?: number;
  /** Largest answer read from the agent; default AGENT_MAX_RESPONSE_BYTES. */
  maxResponseBytes?: number;
}

interface ChatPayload {
  message: string;
  systemPrompt: string | null;
}

/**
 * `gateway_chat_completion`: POSTs the message to the agent runtime's OpenAI-compatible
 * `/v1/chat/completions` and returns `{reply, model, usage}`. The agent's URL and gateway token are read
 * from its `agents` row (scoped to the job's user and agent) when the job runs: the job's `gatewayUrl`
 * (kept in the payload for the spec's request shape) addresses nothing, so a forged one cannot receive the
 * token. Redirects are refused, the answer is capped, 30 s timeout.
 */
export function gatewayChatProcessor(deps: ChatProcessorDeps): JobProcessor {
  return async (job, { signal }) => {
    const payload = job.payload as unknown as ChatPayload;
    if (!job.userId || !job.agentId) throw new Error("the chat job names no user or agent");
    const gateway = await agentGateway(deps.db, deps.dataEncryptionKey, {
      userId: job.userId,
      agentId: job.agentId,
    });
    const messages: ChatMessage[] = [
      ...(payload.systemPrompt ? [{ role: "system" as const, content: payload.systemPrompt }] : []),
      { role: "user", content: payload.message },
    ];
    // AgentCallError messages name "the agent gateway" and are the attempt's error as they are.
    const res = await postChatCompletion(gateway, messages, {
      timeoutMs: deps.timeoutMs,
      maxResponseBytes: deps.maxResponseBytes,
      signal,
    });
    if (res.status < 200 || res.status >= 300)
      throw new Error(`the agent gateway answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    let body: { model?: string; usage?: unknown; choices?: Array<{ message?: { content?: unknown } }> };
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new Error("the agent gateway answered with something that is not JSON");
    }
    const reply = body.choices?.[0]?.message?.content;
    if (typeof reply !== "string")
      throw new Error("the agent gateway's answer has no choices[0].message.content");
    return { reply, model: body.model ?? null, usage: body.usage ?? null };
  };
}
