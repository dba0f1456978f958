/**
 * A loopback stand-in for an agent's runtime gateway: `POST /v1/chat/completions`, OpenAI-compatible,
 * behind `Authorization: Bearer <gateway token>`. Tests choose the reply, make it fail with a status, or
 * slow it down, and read back what it was sent.
 */
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface ChatCompletionMessage {
  role: string;
  content: string;
}

/** One chat-completion call the fake received, its body parsed. */
export interface RecordedChatCompletion {
  authorization: string | undefined;
  model: string | undefined;
  messages: ChatCompletionMessage[];
  body: Record<string, unknown>;
}

export interface FakeAgentRuntimeOptions {
  /** The gateway token the runtime expects; any other Bearer gets 401. */
  token: string;
  /** The assistant's reply, fixed or computed from the messages (default: echoes the last user message). */
  reply?: string | ((messages: ChatCompletionMessage[]) => string);
  /** Model named in answers when the request names none. */
  model?: string;
}

export interface FakeAgentRuntime {
  url: string;
  /** Every HTTP request received, in order (from the underlying fake upstream). */
  requests: FakeUpstream["requests"];
  /** Chat-completion calls with a valid token that reached the model, in order. */
  completions: RecordedChatCompletion[];
  setReply(reply: NonNullable<FakeAgentRuntimeOptions["reply"]>): void;
  /** Answer every chat call with this status and an OpenAI-style error body; null to succeed again. */
  failWith(status: number | null, message?: string): void;
  /** Wait this long before answering each chat call. */
  setDelay(ms: number): void;
  close(): Promise<void>;
}

const COMPLETIONS_PATH = "/v1/chat/completions";

export async function startFakeAgentRuntime(options: FakeAgentRuntimeOptions): Promise<FakeAgentRuntime> {
  let reply = options.reply ?? ((messages) => `echo: ${messages.at(-1)?.content ?? ""}`);
  let failure: { status: number; message: string } | null = null;
  let delayMs = 0;
  let sequence = 0;
  const completions: RecordedChatCompletion[] = [];

  const upstream = await startFakeUpstream(async (req, res, raw) => {
    const path = (req.url ?? "/").split("?")[0];
    if (path !== COMPLETIONS_PATH)
      return sendJson(res, 404, openAiError(`no route for ${path}`, "not_found"));
    if (req.method !== "POST") return sendJson(res, 405, openAiError("use POST", "method_not_allowed"));
    const authorization = req.headers.authorization;
    if (authorization !== `Bearer ${options.token}`) {
      return sendJson(res, 401, openAiError("invalid gateway token", "invalid_api_key"));
    }
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
    } catch {
      return sendJson(res, 400, openAiError("body is not JSON", "invalid_request_error"));
    }
    const messages = body?.messages;
    if (!Array.isArray(messages) || messages.length === 0) {
      return sendJson(res, 400, openAiError("messages must be a non-empty array", "invalid_request_error"));
    }
    const model = typeof body.model === "string" ? body.model : undefined;
    completions.push({ authorization, model, messages: messages as ChatCompletionMessage[], body });
    if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (failure) return sendJson(res, failure.status, openAiError(failure.message, "server_error"));
    const content = typeof reply === "function" ? reply(messages as ChatCompletionMessage[]) : reply;
    const promptTokens = words(
      messages.map((m: ChatCompletionMessage) => String(m?.content ?? "")).join(" "),
    );
    const completionTokens = words(content);
    sequence += 1;
    sendJson(res, 200, {
      id: `chatcmpl-fake-${sequence}`,
      object: "chat.completion",
      created: Math.floor(Date.now() / 1000),
      model: model ?? options.model ?? "fake-agent-model",
      choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
      usage: {
        prompt_tokens: promptTokens,
        completion_tokens: completionTokens,
        total_tokens: promptTokens + completionTokens,
      },
    });
  });

  return {
    url: upstream.url,
    requests: upstream.requests,
    completions,
    setReply(next) {
      reply = next;
    },
    failWith(status, message = "the agent runtime failed") {
      failure = status === null ? null : { status, message };
    },
    setDelay(ms) {
      delayMs = ms;
    },
    close: () => upstream.close(),
  };
}

function openAiError(message: string, type: string) {
  return { error: { message, type } };
}

/** A rough token count: enough for a plausible `usage`. */
function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}
