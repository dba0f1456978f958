/**
 * A fake OpenAI-compatible AI provider on 127.0.0.1: `POST /v1/chat/completions` answers a chat completion
 * as JSON, or with `stream: true` as server-sent `data: {chunk}\n\n` events ending with `data: [DONE]`.
 * It checks the bearer key, can fail with any status, answer late, or hold a stream part-way, and records
 * every request it received.
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

/**
 * Decides the answer to a (non-streaming) request from its body, for example from its last message;
 * undefined answers with the plain reply.
 */
export type FakeResponder = (body: Record<string, unknown>) => FakeScriptedReply | undefined;

/** A request that reached `/v1/chat/completions`, body parsed (undefined when not JSON). */
export interface FakeChatRequest {
  headers: IncomingHttpHeaders;
  body: Record<string, unknown> | undefined;
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
  /** Script the non-streaming answers (tool calls included) from each request's body; null: plain replies. */
  setResponder(responder: FakeResponder | null): void;
  /** Answer every request with this status and body (default an OpenAI-style error); null: succeed again. */
  setFailure(failure: { status: number; body?: unknown } | null): void;
  /** Wait this long before answering (headers included). */
  setDelay(ms: number): void;
  /** Wait this long between two stream events. */
  setChunkDelay(ms: number): void;
  /** Hold the next streams after `afterChunks` content chunks until the returned function is called. */
  holdStream(afterChunks: number): () => void;
  /** Streams whose connection closed before `[DONE]` was written (the client went away). */
  streamsClosedEarly(): number;
  /** Back to the defaults; keeps the request log. */
  reset(): void;
  close(): Promise<void>;
}

const DEFAULT_REPLY = "Hello from the fake provider.";

export async function startFakeAiProvider(options: FakeAiProviderOptions = {}): Promise<FakeAiProvider> {
  const apiKey = options.apiKey ?? "fake-ai-provider-key";
  const requests: FakeChatRequest[] = [];
  let reply = DEFAULT_REPLY;
  let replyChunks: string[] | undefined;
  let responder: FakeResponder | null = null;
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
    requests.push({ headers: req.headers, body });
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
    if (body.stream === true) {
      await stream(res, { id, created, model: body.model });
      return;
    }
    const scripted = responder?.(body);
    const calls = scripted?.toolCalls ?? [];
    const message =
      calls.length > 0
        ? {
            role: "assistant",
            content: scripted?.content ?? null,
            tool_calls: calls.map((call) => ({
              id: call.id ?? `call_fake_${++toolCallSequence}`,
              type: "function",
              function: {
                name: call.name,
                arguments:
                  typeof call.arguments === "string" ? call.arguments : JSON.stringify(call.arguments),
              },
            })),
          }
        : { role: "assistant", content: scripted ? (scripted.content ?? null) : reply };
    sendJson(res, 200, {
      id,
      object: "chat.completion",
      created,
      model: body.model,
      choices: [{ index: 0, message, finish_reason: calls.length > 0 ? "tool_calls" : "stop" }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    });
  });

  async function stream(res: ServerResponse, meta: { id: string; created: number; model: string }) {
    let finished = false;
    res.on("close", () => {
      if (!finished) closedEarly++;
    });
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) => ({
      id: meta.id,
      object: "chat.completion.chunk",
      created: meta.created,
      model: meta.model,
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const pieces = replyChunks ?? reply.split(/(?<= )/);
    const events: unknown[] = [
      chunk({ role: "assistant", content: "" }, null),
      ...pieces.map((content) => chunk({ content }, null)),
      chunk({}, "stop"),
    ];
    const held = hold;
    for (const [index, event] of events.entries()) {
      if (res.destroyed) return;
      // Content chunks are events 1..n (event 0 only announces the role).
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

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
