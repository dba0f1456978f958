/**
 * A fake OpenAI-compatible AI provider on 127.0.0.1: `POST /v1/chat/completions` answers a chat completion
 * as JSON, or with `stream: true` as server-sent `data: {chunk}\n\n` events ending with `data: [DONE]`
 * (scripted tool calls in OpenAI's delta format; a final usage chunk as OpenAI sends it, when asked with
 * `stream_options.include_usage` unless told otherwise). It checks the bearer key, can fail with any status,
 * answer late, or hold a stream part-way, and records every request it received.
 */
import type { IncomingHttpHeaders, ServerResponse } from "node:http";
import { type FakeUpstream, sendJson, startFakeUpstream } from "../fake-upstream";

export interface FakeAiProviderOptions {
  /** The key it accepts as `Authorization: Bearer <key>`; default `fake-ai-provider-key`. */
  apiKey?: string;
}

/** A tool call a scripted answer asks for (OpenAI `tool_calls`); `arguments` objects are sent as JSON text. */
export interface FakeToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
  id?: string;
}

/** A scripted answer: text, or tool calls (then `finish_reason` is `tool_calls`). */
export interface FakeScriptedReply {
  content?: string | null;
  toolCalls?: FakeToolCall[];
}

/** What a responder gets besides the body. */
export interface FakeResponderContext {
  /** The text of the last `user` message (its text parts joined by newlines when `content` is an array). */
  lastUserText: string;
}

/**
 * Decides the answer to a request (JSON or stream) from its body, for example from its last user message;
 * undefined answers with the plain reply.
 */
export type FakeResponder = (
  body: Record<string, unknown>,
  context: FakeResponderContext,
) => FakeScriptedReply | undefined;

/** A request that reached `/v1/chat/completions`, body parsed (undefined when not JSON). */
export interface FakeChatRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
  /** The request's `stream_options` as sent; undefined when it had none. */
  streamOptions: unknown;
}

/**
 * When a stream ends with OpenAI's usage chunk (`choices: []`, `usage`): `when-asked` (OpenAI's way: only
 * with `stream_options.include_usage: true`), `always`, or `never` (a provider that reports none).
 */
export type FakeStreamUsage = "when-asked" | "always" | "never";

/** The token counts answers report (OpenAI's `usage`). */
export interface FakeUsage {
  prompt_tokens: number;
  completion_tokens: number;
}

export interface FakeAiProvider {
  /** Base URL to configure as `AI_PROVIDER_URL` (ends with `/v1`). */
  url: string;
  apiKey: string;
  upstream: FakeUpstream;
  /** Every chat completion request, in order. */
  requests: FakeChatRequest[];
  /** The answer's text; a stream sends it as `chunks` (default: split after each space). */
  setReply(content: string, chunks?: string[]): void;
  /** Script the answers, JSON and streamed (tool calls included), from each request; null: plain replies. */
  setResponder(responder: FakeResponder | null): void;
  /** When streams end with a usage chunk (default `when-asked`). */
  setStreamUsage(mode: FakeStreamUsage): void;
  /** The usage answers report (default 1 prompt and 1 completion token). */
  setUsage(usage: FakeUsage): void;
  /** Answer every request with this status and body (default an OpenAI-style error); null: succeed again. */
  setFailure(failure: { status: number; body?: unknown } | null): void;
  /** Wait this long before answering (headers included). */
  setDelay(ms: number): void;
  /** Wait this long between two stream events. */
  setChunkDelay(ms: number): void;
  /**
   * Hold the next streams after `afterChunks` chunks past the first (which only announces the role: content
   * and tool-call chunks, in order) until the returned function is called.
   */
  holdStream(afterChunks: number): () => void;
  /** Streams whose connection closed before `[DONE]` was written (the client went away). */
  streamsClosedEarly(): number;
  /** Back to the defaults; keeps the request log. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_REPLY = "Hello from the fake provider.";
const DEFAULT_USAGE: FakeUsage = { prompt_tokens: 1, completion_tokens: 1 };
/** Characters of a tool call's arguments per streamed fragment. */
const ARGUMENT_FRAGMENT_CHARS = 8;

/** The text of the last `user` message of a chat completion request ("" when it has none). */
export function lastUserText(body: Record<string, unknown> | undefined): string {
  const messages = Array.isArray(body?.messages) ? (body.messages as unknown[]) : [];
  const last = messages
    .filter(
      (m): m is { content?: unknown } =>
        typeof m === "object" && m !== null && (m as { role?: unknown }).role === "user",
    )
    .at(-1);
  return textOf(last?.content);
}

/** A message's `content` as text: a string, or the `text` of its text parts joined by newlines. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((part: unknown) => {
      const { type, text } = (part ?? {}) as { type?: unknown; text?: unknown };
      return type === "text" && typeof text === "string" ? text : "";
    })
    .filter(Boolean)
    .join("\n");
}

export async function startFakeAiProvider(options: FakeAiProviderOptions = {}): Promise<FakeAiProvider> {
  const apiKey = options.apiKey ?? "fake-ai-provider-key";
  const requests: FakeChatRequest[] = [];
  let reply = DEFAULT_REPLY;
  let replyChunks: string[] | undefined;
  let responder: FakeResponder | null = null;
  let streamUsage: FakeStreamUsage = "when-asked";
  let usage: FakeUsage = DEFAULT_USAGE;
  let toolCallSequence = 0;
  let failure: { status: number; body?: unknown } | null = null;
  let delayMs = 0;
  let chunkDelayMs = 0;
  let hold: { afterChunks: number; released: Promise<void> } | null = null;
  let closedEarly = 0;
  let sequence = 0;

  const upstream = await startFakeUpstream(async (req, res, raw) => {
    const path = (req.url ?? "/").split("?")[0];
    if (req.method !== "POST" || path !== "/v1/chat/completions") {
      sendJson(res, 404, openAiError(`no route ${req.method} ${path}`, "invalid_request_error", null));
      return;
    }
    const body = parseObject(raw);
    requests.push({ headers: req.headers, body, streamOptions: body?.stream_options });
    if (delayMs > 0) await sleep(delayMs);
    if (res.destroyed) return;
    if (req.headers.authorization !== `Bearer ${apiKey}`) {
      sendJson(
        res,
        401,
        openAiError("Incorrect API key provided", "invalid_request_error", "invalid_api_key"),
      );
      return;
    }
    if (failure) {
      const message = `fake provider failure ${failure.status}`;
      sendJson(res, failure.status, failure.body ?? openAiError(message, "api_error", null));
      return;
    }
    if (!body || typeof body.model !== "string" || !Array.isArray(body.messages)) {
      sendJson(res, 400, openAiError("model and messages are required", "invalid_request_error", null));
      return;
    }
    const id = `chatcmpl-fake-${++sequence}`;
    const created = Math.floor(Date.now() / 1000);
    const scripted = responder?.(body, { lastUserText: lastUserText(body) });
    const calls = (scripted?.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_fake_${++toolCallSequence}`,
      name: call.name,
      arguments: typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
    }));
    const content = scripted ? (scripted.content ?? null) : reply;
    const reported = {
      prompt_tokens: usage.prompt_tokens,
      completion_tokens: usage.completion_tokens,
      total_tokens: usage.prompt_tokens + usage.completion_tokens,
    };
    if (body.stream === true) {
      const asked = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
      const withUsage = streamUsage === "always" || (streamUsage === "when-asked" && asked);
      await stream(res, {
        id,
        created,
        model: body.model,
        // The fixed reply streams in the chunks it was given; a scripted one after each space.
        pieces: content === null ? [] : !scripted && replyChunks ? replyChunks : content.split(/(?<= )/),
        calls,
        usage: withUsage ? reported : null,
      });
      return;
    }
    const message =
      calls.length > 0
        ? {
            role: "assistant",
            content,
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: "function",
              function: { name: call.name, arguments: call.arguments },
            })),
          }
        : { role: "assistant", content };
    sendJson(res, 200, {
      id,
      object: "chat.completion",
      created,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
      usage: reported,
    });
  });

  async function stream(
    res: ServerResponse,
    answer: {
      id: string;
      created: number;
      model: string;
      pieces: string[];
      calls: Array<{ id: string; name: string; arguments: string }>;
      usage: Record<string, number> | null;
    },
  ) {
    let finished = false;
    res.on("close", () => {
      if (!finished) closedEarly++;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const base = {
      id: answer.id,
      object: "chat.completion.chunk",
      created: answer.created,
      model: answer.model,
    };
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
      ...base,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    // OpenAI's tool-call deltas: the call's id and name with empty arguments, then the arguments in pieces.
    const toolCallChunks = answer.calls.flatMap((call, index) => [
      chunk(
        {
          tool_calls: [
            { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } },
          ],
        },
        null,
      ),
      ...fragments(call.arguments).map((piece) =>
        chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null),
      ),
    ]);
    const events: unknown[] = [
      chunk(
        { role: "assistant", content: answer.calls.length > 0 && answer.pieces.length === 0 ? null : "" },
        null,
      ),
      ...answer.pieces.map((content) => chunk({ content }, null)),
      ...toolCallChunks,
      chunk({}, answer.calls.length > 0 ? "tool_calls" : "stop"),
      ...(answer.usage ? [{ ...base, choices: [], usage: answer.usage }] : []),
    ];
    const held = hold;
    for (const [index, event] of events.entries()) {
      if (res.destroyed) return;
      // Event 0 only announces the role.
      if (held && index === held.afterChunks + 1) await held.released;
      if (chunkDelayMs > 0 && index > 0) await sleep(chunkDelayMs);
      if (res.destroyed) return;
      res.write(`data: ${JSON.stringify(event)}\n\n`);
    }
    if (res.destroyed) return;
    finished = true;
    res.end("data: [DONE]\n\n");
  }

  return {
    url: `${upstream.url}/v1`,
    apiKey,
    upstream,
    requests,
    setReply(content, chunks) {
      reply = content;
      replyChunks = chunks;
    },
    setResponder(next) {
      responder = next;
    },
    setStreamUsage(mode) {
      streamUsage = mode;
    },
    setUsage(next) {
      usage = next;
    },
    setFailure(next) {
      failure = next;
    },
    setDelay(ms) {
      delayMs = ms;
    },
    setChunkDelay(ms) {
      chunkDelayMs = ms;
    },
    holdStream(afterChunks) {
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      hold = { afterChunks, released };
      return () => {
        hold = null;
        release();
      };
    },
    streamsClosedEarly: () => closedEarly,
    reset() {
      reply = DEFAULT_REPLY;
      replyChunks = undefined;
      responder = null;
      streamUsage = "when-asked";
      usage = DEFAULT_USAGE;
      failure = null;
      delayMs = 0;
      chunkDelayMs = 0;
      hold = null;
    },
    close: () => upstream.close(),
  };
}

function openAiError(message: string, type: string, code: string | null) {
  return { error: { message, type, param: null, code } };
}

function parseObject(raw: Buffer): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw.toString("utf8"));
    return value && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** A tool call's arguments in the pieces a stream sends them in (one empty piece for empty arguments). */
function fragments(text: string): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += ARGUMENT_FRAGMENT_CHARS)
    pieces.push(text.slice(i, i + ARGUMENT_FRAGMENT_CHARS));
  return pieces;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
