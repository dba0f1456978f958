import type { Database } from "@svc/db";
import { aiProviderUnconfigured } from "../ai/errors";
import { type JobProcessor, PermanentJobError } from "../platform-jobs/types";
import { agentGateway, type ChatMessage, postChatCompletion } from "./gateway";
import { runtimeFailureOf } from "./provider-failure";

/** The error code the backend's `/api/ai/chat` answers without an AI provider, relayed by the agent runtime. */
const AI_PROVIDER_UNCONFIGURED = "ai_provider_unconfigured";
/** Its message, which OpenClaw relays inside a failed run's reply ("503 AI_PROVIDER_KEY is not configured"). */
const AI_PROVIDER_UNCONFIGURED_MESSAGE = aiProviderUnconfigured().message;

/**
 * The runtime session of a user's chat with their agent. Each agent runs its own runtime and has one owner,
 * so the user's id names the user+agent pair; the session follows the owner, not the agent's lifetime.
 */
export function chatSessionOf(userId: string): string {
  return `platform:${userId}`;
}
export const NO_AI_PROVIDER_MESSAGE = "no AI provider is configured: set AI_PROVIDER_URL and AI_PROVIDER_KEY";

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
 * `gateway_chat_completion`: the message to the agent runtime's `/v1/chat/completions` → `{reply, model,
 * usage}`. URL and token come from the agent's row when the job runs: the payload's `gatewayUrl` (kept
 * because callers send it) addresses nothing, so a forged one cannot receive the token. CHAT_JOB_TIMEOUT_MS
 * is 6 min because a dangerous tool call waits for a person inside the run. The user's session
 * (`chatSessionOf`) lets the agent remember. A 200 reporting a failed run (`runtimeFailureOf`) fails the
 * attempt; what retrying cannot change (no user or agent, no gateway token, no AI provider) fails the job
 * at once (PermanentJobError).
 */
export function gatewayChatProcessor(deps: ChatProcessorDeps): JobProcessor {
  return async (job, { signal }) => {
    const payload = job.payload as unknown as ChatPayload;
    if (!job.userId || !job.agentId) throw new PermanentJobError("the chat job names no user or agent");
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
      session: chatSessionOf(job.userId),
    });
    if (res.status < 200 || res.status >= 300) {
      if (errorCodeOf(res.text) === AI_PROVIDER_UNCONFIGURED)
        throw new PermanentJobError(NO_AI_PROVIDER_MESSAGE);
      throw new Error(`the agent gateway answered HTTP ${res.status}: ${res.text.slice(0, 200)}`);
    }
    let body: { model?: string; usage?: unknown; choices?: Array<{ message?: { content?: unknown } }> };
    try {
      body = JSON.parse(res.text);
    } catch {
      throw new Error("the agent gateway answered with something that is not JSON");
    }
    const reply = body.choices?.[0]?.message?.content;
    if (typeof reply !== "string")
      throw new Error("the agent gateway's answer has no choices[0].message.content");
    const failure = runtimeFailureOf(reply, body.usage);
    if (failure !== null) {
      if (failure.includes(AI_PROVIDER_UNCONFIGURED_MESSAGE))
        throw new PermanentJobError(NO_AI_PROVIDER_MESSAGE);
      throw new Error(`the agent's AI provider failed: ${failure.slice(0, 300)}`);
    }
    return { reply, model: body.model ?? null, usage: body.usage ?? null };
  };
}

/** The code of an error answer: OpenAI-style `{error: {code}}` (the runtime) or `{error: "<code>"}` (ours). */
function errorCodeOf(text: string): string | null {
  try {
    const { error } = JSON.parse(text) as { error?: unknown };
    if (typeof error === "string") return error;
    const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : null;
    return typeof code === "string" ? code : null;
  } catch {
    return null;
  }
}
