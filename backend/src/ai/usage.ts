import type { ChatCompletionRequest } from "./inputs";

/** Tokens one exchange cost. */
export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
}

/**
 * Most tokens one side of an answer is counted for. The provider's numbers are taken up to it: no model's
 * context comes near it, and a wild value must not overflow the day's sum nor spend a year's budget at once.
 */
export const MAX_ANSWER_TOKENS = 10_000_000;

/**
 * The provider's `usage` (OpenAI's `prompt_tokens` / `completion_tokens`, each at most MAX_ANSWER_TOKENS),
 * or null when it sent none; a value that is not a whole non-negative number counts as missing.
 */
export function providerUsage(body: unknown): TokenUsage | null {
  if (!isObject(body) || !isObject(body.usage)) return null;
  const prompt = body.usage.prompt_tokens;
  const completion = body.usage.completion_tokens;
  if (!isCount(prompt) && !isCount(completion)) return null;
  return {
    promptTokens: isCount(prompt) ? Math.min(prompt, MAX_ANSWER_TOKENS) : 0,
    completionTokens: isCount(completion) ? Math.min(completion, MAX_ANSWER_TOKENS) : 0,
  };
}

/**
 * A rough count (4 characters a token) for a provider that reports no usage, so that such answers still
 * spend the token budget: the prompt is the messages and the tools offered, the completion what was
 * generated (a stream left early counts what arrived).
 */
export function estimatedUsage(request: ChatCompletionRequest, completionChars: number): TokenUsage {
  const promptChars =
    JSON.stringify(request.messages).length +
    (request.tools === undefined ? 0 : JSON.stringify(request.tools).length);
  return {
    promptTokens: Math.min(Math.ceil(promptChars / 4), MAX_ANSWER_TOKENS),
    completionTokens: Math.min(Math.ceil(completionChars / 4), MAX_ANSWER_TOKENS),
  };
}

/** Characters of the generated text (content, reasoning, tool calls) in a completion or a stream chunk. */
export function completionChars(body: unknown): number {
  if (!isObject(body) || !Array.isArray(body.choices)) return 0;
  let chars = 0;
  for (const choice of body.choices) {
    if (!isObject(choice)) continue;
    const message = isObject(choice.message) ? choice.message : isObject(choice.delta) ? choice.delta : null;
    if (!message) continue;
    if (typeof message.content === "string") chars += message.content.length;
    if (message.tool_calls !== undefined) chars += JSON.stringify(message.tool_calls).length;
    // Reasoning models' thinking, as OpenAI-compatible providers stream it, is generated (and billed) too.
    for (const field of ["reasoning_content", "reasoning"] as const) {
      if (typeof message[field] === "string") chars += message[field].length;
    }
  }
  return chars;
}

/** The tokens of a JSON answer: the provider's usage, else an estimate. */
export function usageOfCompletion(request: ChatCompletionRequest, body: unknown): TokenUsage {
  return providerUsage(body) ?? estimatedUsage(request, completionChars(body));
}

/** Longest event line kept while looking for usage; longer ones pass through uncounted. */
const MAX_LINE_CHARS = 1 << 20;

/**
 * Passes a server-sent event stream through unchanged while reading its `data:` events: the last `usage`
 * any event carried (OpenAI sends it in a final chunk when asked with `stream_options.include_usage`) or,
 * without one, an estimate from the streamed text. `onEnd` runs once the stream ended, failed or was left
 * early, before the consumer's loop goes on.
 */
export async function* meterEventStream(
  request: ChatCompletionRequest,
  chunks: AsyncIterable<Uint8Array>,
  onEnd: (usage: TokenUsage) => Promise<void>,
): AsyncGenerator<Uint8Array> {
  const decoder = new TextDecoder();
  let pending = "";
  let usage: TokenUsage | null = null;
  let chars = 0;
  const readLine = (line: string) => {
    if (!line.startsWith("data:")) return;
    const data = line.slice(5).trim();
    if (data === "" || data === "[DONE]") return;
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    usage = providerUsage(event) ?? usage;
    chars += completionChars(event);
  };
  try {
    for await (const chunk of chunks) {
      pending += decoder.decode(chunk, { stream: true });
      const lines = pending.split(/\r?\n/);
      pending = lines.pop() ?? "";
      for (const line of lines) readLine(line);
      if (pending.length > MAX_LINE_CHARS) pending = "";
      yield chunk;
    }
    readLine(pending + decoder.decode());
  } finally {
    await onEnd(usage ?? estimatedUsage(request, chars));
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function isCount(value: unknown): value is number {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
}

/** A streaming request asks for the final usage chunk, whatever the caller's `stream_options` said. */
export function withStreamUsage(request: ChatCompletionRequest): ChatCompletionRequest {
  if (request.stream !== true) return request;
  const options = isObject(request.stream_options) ? request.stream_options : {};
  return { ...request, stream_options: { ...options, include_usage: true } };
}
