/**
 * What a paid gateway call may ask of each plugin. A call is priced per call, so the work one call can ask
 * for is capped per plugin: only the fields a plugin takes are forwarded (any other is a 400 naming it,
 * checked before anything is charged), each within its cap, and the output limit is always sent (the cap
 * when the caller leaves it out), so no call asks the provider for more than its price covers. A prompt's
 * characters count messages, tools and response_format as JSON; STT_MAX_AUDIO is the 1 MB body's base64.
 * `stream` may be sent but is not forwarded: `Accept: text/event-stream` decides.
 */
import { z } from "zod";
import { parseWith } from "../infra/http/body";
import { invalidRequest } from "../infra/http/codes";
import type { PluginId } from "./plugins";

export interface ChatCaps {
  maxTokens: number;
  messages: number;
  tools: number;
  promptChars: number;
}

export const CHAT_CAPS: Readonly<Record<"agent" | "generate-text", ChatCaps>> = {
  agent: { maxTokens: 4096, messages: 100, tools: 64, promptChars: 64_000 },
  "generate-text": { maxTokens: 1024, messages: 50, tools: 16, promptChars: 16_000 },
};
export const TTS_MAX_TEXT = 4096;
export const STT_MAX_AUDIO = 1_000_000;

const text = (max: number) =>
  z.string({ error: "must be a string" }).max(max, `must be at most ${max} characters`);
const between = (min: number, max: number) =>
  z
    .number({ error: "must be a number" })
    .min(min, `must be between ${min} and ${max}`)
    .max(max, `must be between ${min} and ${max}`);
const upTo = (max: number) =>
  z
    .number({ error: "must be a whole number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max}`);

/** A plugin's fields as a strict object: an unknown field is named with the list of those it takes. */
function fields<S extends z.ZodRawShape>(plugin: PluginId, shape: S) {
  const known = Object.keys(shape).join(", ");
  return z.strictObject(shape, {
    error: (issue) =>
      issue.code === "unrecognized_keys"
        ? `${issue.keys.join(", ")}: not a field plugin "${plugin}" takes (it takes ${known})`
        : "must be a JSON object",
  });
}

function chatFields(plugin: "agent" | "generate-text") {
  const caps = CHAT_CAPS[plugin];
  return fields(plugin, {
    messages: z
      .array(z.looseObject({ role: z.string({ error: "must be a string" }) }), {
        error: (issue) => (issue.input === undefined ? "is required" : "must be an array of messages"),
      })
      .min(1, "must contain at least one message")
      .max(caps.messages, `must contain at most ${caps.messages} messages`),
    model: text(128).optional(),
    max_tokens: upTo(caps.maxTokens).optional(),
    max_completion_tokens: upTo(caps.maxTokens).optional(),
    n: upTo(1).optional(),
    temperature: between(0, 2).optional(),
    top_p: between(0, 1).optional(),
    stop: z.union([text(256), z.array(text(256)).max(4, "must list at most 4 stops")]).optional(),
    presence_penalty: between(-2, 2).optional(),
    frequency_penalty: between(-2, 2).optional(),
    seed: z.number().int("must be a whole number").optional(),
    user: text(256).optional(),
    response_format: z.looseObject({ type: z.string() }).optional(),
    tools: z
      .array(z.looseObject({ type: z.string() }))
      .max(caps.tools, `must list at most ${caps.tools} tools`)
      .optional(),
    tool_choice: z.union([text(64), z.looseObject({ type: z.string() })]).optional(),
    parallel_tool_calls: z.boolean().optional(),
    stream: z.boolean({ error: "must be a boolean" }).optional(),
  });
}

const schemas = {
  agent: chatFields("agent"),
  "generate-text": chatFields("generate-text"),
  tts: fields("tts", {
    text: text(TTS_MAX_TEXT).min(1, "must not be empty"),
    voice: text(64).optional(),
    model: text(128).optional(),
    format: text(16).optional(),
    speed: between(0.25, 4).optional(),
    language: text(16).optional(),
  }),
  stt: fields("stt", {
    audio: text(STT_MAX_AUDIO).min(1, "must not be empty"),
    format: text(16).optional(),
    language: text(16).optional(),
    model: text(128).optional(),
    prompt: text(1000).optional(),
  }),
} satisfies Record<PluginId, z.ZodType>;

/**
 * The body to forward to `plugin` (without `plugin` and `stream`), with the output limit filled in for the
 * chat plugins; 400 `invalid_request` naming the field that is unknown, missing or over its cap.
 */
export function pluginRequest(plugin: PluginId, body: Record<string, unknown>): Record<string, unknown> {
  const { stream: _stream, ...request } = parseWith(schemas[plugin], body, { keys: true }) as Record<
    string,
    unknown
  >;
  if (plugin !== "agent" && plugin !== "generate-text") return request;
  const caps = CHAT_CAPS[plugin];
  const prompt = [request.messages, request.tools, request.response_format]
    .map((part) => (part === undefined ? 0 : JSON.stringify(part).length))
    .reduce((a, b) => a + b);
  if (prompt > caps.promptChars)
    throw invalidRequest(
      `messages: the prompt (messages, tools and response_format as JSON) is ${prompt} characters; ` +
        `plugin "${plugin}" takes at most ${caps.promptChars}`,
      "messages",
    );
  if (request.max_tokens === undefined && request.max_completion_tokens === undefined)
    request.max_tokens = caps.maxTokens;
  return request;
}
