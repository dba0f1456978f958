/**
 * The chat path: an OpenAI-compatible request, completed with the session's history, answered by the
 * platform backend's `POST /api/ai/chat` (with the agent's gateway token), recorded in the session.
 */
import { randomBytes } from "node:crypto";
import { runToolCall, TOOL_DEFINITIONS } from "./tools.mjs";

/** Model ids that mean "this agent's model" in OpenClaw (`openclaw`, `openclaw:<agent>`, `openclaw/<agent>`). */
const AGENT_MODEL = /^openclaw(?:[:/].*)?$/;
const ROLES = ["system", "user", "assistant", "tool"];
/** Transcript messages put before a request that does not carry its own history. */
export const HISTORY_LIMIT = 40;
/** A safety net only: the backend gives the AI provider its own, shorter timeout. */
export const BACKEND_TIMEOUT_MS = 120_000;
const MAX_SESSION_KEY_LENGTH = 200;
/** Rounds of tool calls in one exchange; the last round asks the model to answer without tools. */
export const MAX_TOOL_ROUNDS = 8;

/** A failure with the status and OpenAI-style error the caller gets. */
export class ChatError extends Error {
  constructor(status, type, message, code = null) {
    super(message);
    this.status = status;
    this.type = type;
    this.code = code;
  }
}

const invalid = (message) => new ChatError(400, "invalid_request_error", message);
const isObject = (value) => typeof value === "object" && value !== null && !Array.isArray(value);

/** Checks a `/v1/chat/completions` body; throws a 400 `ChatError` naming the first bad field. */
export function parseChatRequest(body) {
  if (!isObject(body)) throw invalid("the request body must be a JSON object");
  if (body.model !== undefined && typeof body.model !== "string") throw invalid("model must be a string");
  if (body.stream !== undefined && typeof body.stream !== "boolean")
    throw invalid("stream must be a boolean");
  if (body.stream === true) throw invalid("streaming not supported by the development runtime");
  if (body.user !== undefined && typeof body.user !== "string") throw invalid("user must be a string");
  if (!Array.isArray(body.messages)) throw invalid("messages is required and must be an array");
  if (body.messages.length === 0) throw invalid("messages must contain at least one message");
  body.messages.forEach((message, i) => {
    if (!isObject(message)) throw invalid(`messages[${i}] must be an object`);
    if (!ROLES.includes(message.role))
      throw invalid(`messages[${i}].role must be one of ${ROLES.join(", ")}`);
    const { content } = message;
    const validContent =
      typeof content === "string" ||
      content === null ||
      Array.isArray(content) ||
      (content === undefined && message.role === "assistant");
    if (!validContent) throw invalid(`messages[${i}].content must be a string, an array of parts, or null`);
  });
  return body;
}

/** The session of a request: header `x-session-key`, else the body's `user`, else `main`. */
export function sessionKeyOf(headerValue, body) {
  const key = (typeof headerValue === "string" ? headerValue.trim() : "") || body.user?.trim() || "main";
  if (key.length > MAX_SESSION_KEY_LENGTH) {
    throw invalid(`the session key must be at most ${MAX_SESSION_KEY_LENGTH} characters`);
  }
  return key;
}

/** The provider model for a requested one: the agent's model for `openclaw…` or none, else as asked. */
export function resolveModel(requested, defaultModel) {
  return !requested || AGENT_MODEL.test(requested) ? defaultModel : requested;
}

/**
 * The messages sent upstream. A client that sends assistant turns keeps its own history; otherwise the
 * session's recent transcript goes after the leading system messages, so the agent remembers the session.
 */
function withHistory(messages, history) {
  if (history.length === 0 || messages.some((m) => m.role === "assistant")) return messages;
  let systemEnd = 0;
  while (systemEnd < messages.length && messages[systemEnd].role === "system") systemEnd++;
  return [...messages.slice(0, systemEnd), ...history, ...messages.slice(systemEnd)];
}

/** What a request adds to its session: its messages after the last assistant turn, minus system ones. */
function newTurns(messages) {
  const lastAssistant = messages.findLastIndex((m) => m.role === "assistant");
  return messages.slice(lastAssistant + 1).filter((m) => m.role !== "system");
}

/** The message of a backend error body: `{error, message}` (backend) or `{error: {message}}` (provider). */
function backendErrorMessage(body, status) {
  if (isObject(body)) {
    if (typeof body.message === "string") return body.message;
    if (isObject(body.error) && typeof body.error.message === "string") return body.error.message;
    if (typeof body.error === "string") return body.error;
  }
  return `HTTP ${status}`;
}

function backendErrorCode(body) {
  if (!isObject(body)) return null;
  if (typeof body.error === "string") return body.error;
  if (isObject(body.error) && typeof body.error.code === "string") return body.error.code;
  return null;
}

/** The provider's completion as an OpenAI `chat.completion`; throws when it has no usable choice. */
function toChatCompletion(body, model) {
  const choices = isObject(body) && Array.isArray(body.choices) ? body.choices : [];
  if (!choices.some((choice) => isObject(choice?.message))) {
    throw new ChatError(502, "upstream_error", "the platform backend answered without a chat completion");
  }
  return {
    id: typeof body.id === "string" ? body.id : `chatcmpl-${randomBytes(12).toString("hex")}`,
    object: "chat.completion",
    created: Number.isInteger(body.created) ? body.created : Math.floor(Date.now() / 1000),
    model: typeof body.model === "string" ? body.model : model,
    choices: choices.map((choice, i) => ({
      index: Number.isInteger(choice.index) ? choice.index : i,
      message: {
        role: choice.message?.role ?? "assistant",
        content: choice.message?.content ?? null,
        ...(choice.message?.tool_calls ? { tool_calls: choice.message.tool_calls } : {}),
      },
      finish_reason: choice.finish_reason ?? "stop",
    })),
    usage: isObject(body.usage) ? body.usage : null,
  };
}

/**
 * POSTs the request to the backend's AI chat endpoint. Backend errors are 502 with its message,
 * unreachable 502, no answer within `BACKEND_TIMEOUT_MS` 504.
 */
async function askBackend(config, request, signal) {
  if (!config.aiChatUrl) {
    throw new ChatError(503, "server_error", "PLATFORM_AI_CHAT_URL is not configured");
  }
  let res;
  try {
    res = await fetch(config.aiChatUrl, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${config.token}` },
      body: JSON.stringify(request),
      signal: AbortSignal.any([signal, AbortSignal.timeout(BACKEND_TIMEOUT_MS)]),
    });
  } catch (err) {
    if (err.name === "TimeoutError") {
      throw new ChatError(
        504,
        "timeout",
        `the platform backend did not answer within ${BACKEND_TIMEOUT_MS} ms`,
      );
    }
    if (signal.aborted) throw new ChatError(499, "aborted", "the request was aborted");
    const reason = err.cause?.code ?? err.message;
    throw new ChatError(502, "upstream_error", `the platform backend could not be reached (${reason})`);
  }
  const text = await res.text();
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!res.ok) {
    throw new ChatError(
      502,
      "upstream_error",
      `the platform backend answered ${res.status}: ${backendErrorMessage(body, res.status)}`,
      backendErrorCode(body),
    );
  }
  if (body === undefined)
    throw new ChatError(502, "upstream_error", "the platform backend answered without JSON");
  return body;
}

/**
 * One completion of `messages` by the agent's model, without a session (the persona evaluation's probes
 * and judgements): the answer's text. Fails like a chat: 503 without a provider, 502/504 from the backend.
 */
export async function completeOnce(config, messages, signal) {
  const model = resolveModel(undefined, config.defaultModel);
  const completion = toChatCompletion(await askBackend(config, { model, messages }, signal), model);
  const content = completion.choices[0].message.content;
  return typeof content === "string" ? content : "";
}

/** The token counts of every provider answer of one exchange, added up. */
function addUsage(total, usage) {
  if (!isObject(usage)) return total;
  const sum = { ...(total ?? {}) };
  for (const [key, value] of Object.entries(usage)) {
    if (typeof value === "number") sum[key] = (typeof sum[key] === "number" ? sum[key] : 0) + value;
  }
  return sum;
}

/**
 * Runs one exchange of a session: history + request to the backend, the reply mapped to a
 * `chat.completion`, the new turns and the reply recorded in the session. With the runtime's tools
 * (`config.tools`, present when a pre-tool-use hook is configured) and no tools of the client's own, the
 * provider is offered `bash`, `read` and `write`: each call it asks for goes through the hook, runs, and its
 * result goes back, until it answers without tool calls (at most `MAX_TOOL_ROUNDS` rounds).
 * @param {{aiChatUrl: string | null, token: string, defaultModel: string, tools?: {workspace: string, hookPath: string} | null, log?: object}} config
 * @param {import("./state.mjs").StateStore} store
 */
export async function runChat(config, store, { request, sessionKey, signal }) {
  const { stream: _stream, ...rest } = request;
  const model = resolveModel(request.model, config.defaultModel);
  const messages = [...withHistory(request.messages, store.history(sessionKey, HISTORY_LIMIT))];
  // A client that brings its own tools runs them itself: its tool calls are answered back to it as sent.
  const tools = config.tools && request.tools === undefined ? config.tools : null;
  const upstream = { ...rest, model, messages, ...(tools ? { tools: TOOL_DEFINITIONS } : {}) };
  let completion = toChatCompletion(await askBackend(config, upstream, signal), model);
  let usage = completion.usage;
  for (let round = 1; tools; round++) {
    const asked = completion.choices[0].message;
    const calls = Array.isArray(asked.tool_calls) ? asked.tool_calls : [];
    if (calls.length === 0) break;
    if (round > MAX_TOOL_ROUNDS) {
      throw new ChatError(
        502,
        "upstream_error",
        `the model still asked for tools after ${MAX_TOOL_ROUNDS} rounds of tool calls`,
      );
    }
    messages.push({ role: "assistant", content: asked.content ?? null, tool_calls: calls });
    for (const call of calls) {
      const content = await runToolCall(tools, call, { sessionKey, signal, log: config.log });
      messages.push({ role: "tool", tool_call_id: call.id, content });
    }
    const lastRound = round === MAX_TOOL_ROUNDS;
    const next = { ...upstream, messages, ...(lastRound ? { tool_choice: "none" } : {}) };
    completion = toChatCompletion(await askBackend(config, next, signal), model);
    usage = addUsage(usage, completion.usage);
  }
  if (tools) completion.usage = usage;
  const reply = completion.choices[0].message;
  store.recordMessages(sessionKey, [
    ...newTurns(request.messages),
    { role: reply.role, content: reply.content },
  ]);
  return completion;
}
