/**
 * The evaluation's two HTTP clients, both on the one outbound client: the agent's runtime (OpenClaw's
 * OpenAI endpoint on loopback), which answers the probes, and the platform's AI proxy (`/api/ai/chat`),
 * which judges them. Both send the agent's gateway token as Bearer and return the completion's text; a
 * failure is a 502 naming who failed and why.
 */
import { createOutboundClient, HttpError, type OutboundAnswer, OutboundError } from "@svc/common";

/**
 * Deadlines within the web's 15 s run budget: the probes run in parallel and each is judged
 * as soon as it is answered, so a run takes at most one answer plus one judgement.
 */
export const PROBE_TIMEOUT_MS = 8_000;
export const JUDGE_TIMEOUT_MS = 5_000;
/** Largest completion read from either upstream; a probe's answer is far shorter. */
export const MAX_COMPLETION_BYTES = 256 * 1024;
/** Longest answer given to the judge and returned with the run. */
export const MAX_ANSWER_CHARS = 4_000;
/** OpenClaw's reply when the agent run produced no text (`resolveAgentResponseText`): no answer either. */
const OPENCLAW_NO_RESPONSE = "No response from OpenClaw.";

export const agentFailed = (message: string) => new HttpError(502, "agent_failed", message);
export const judgeFailed = (message: string) => new HttpError(502, "judge_failed", message);

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** Answers one probe in its own runtime session. */
export interface RuntimeChatClient {
  answer(prompt: string, sessionKey: string, signal?: AbortSignal): Promise<string>;
}

export interface RuntimeChatClientOptions {
  /** OpenAI API base: the runtime's origin + `/v1` (a test points it at a fake provider's URL). */
  baseUrl: string;
  token: string;
  timeoutMs?: number;
}

/**
 * `POST <baseUrl>/chat/completions` with the agent model `openclaw` and only the probe: the agent answers
 * as itself. `x-openclaw-session-key` gives each probe its own OpenClaw session.
 */
export function createRuntimeChatClient(options: RuntimeChatClientOptions): RuntimeChatClient {
  const post = completionPoster(
    "the agent runtime",
    `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`,
  );
  return {
    async answer(prompt, sessionKey, signal) {
      const fail = (reason: string) => agentFailed(`the agent could not answer "${prompt}": ${reason}`);
      const text = await post(fail, {
        headers: { authorization: `Bearer ${options.token}`, "x-openclaw-session-key": sessionKey },
        json: { model: "openclaw", messages: [{ role: "user", content: prompt }] },
        timeoutMs: options.timeoutMs ?? PROBE_TIMEOUT_MS,
        signal,
      });
      // OpenClaw answers a failed agent run with 200 too; an empty reply is the one sign it gives reliably.
      if (text === null || text.trim() === "" || text.trim() === OPENCLAW_NO_RESPONSE) {
        throw fail("it gave no answer");
      }
      return text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}…` : text;
    },
  };
}

/** Scores answers: a non-streaming completion from the platform's AI proxy. */
export interface JudgeClient {
  complete(messages: ChatMessage[], signal?: AbortSignal): Promise<string>;
}

export interface JudgeClientOptions {
  /** The platform backend (`PLATFORM_BACKEND_URL`). */
  backendUrl: string;
  token: string;
  model: string;
  timeoutMs?: number;
}

/** `POST <backendUrl>/api/ai/chat`: the agent's own token, so the judging counts against its owner's plan. */
export function createJudgeClient(options: JudgeClientOptions): JudgeClient {
  const name = "the platform's AI proxy";
  const post = completionPoster(name, `${options.backendUrl.replace(/\/+$/, "")}/api/ai/chat`);
  return {
    async complete(messages, signal) {
      const fail = (reason: string) => judgeFailed(`the judge could not score an answer: ${reason}`);
      const text = await post(fail, {
        headers: { authorization: `Bearer ${options.token}` },
        json: { model: options.model, messages, stream: false },
        timeoutMs: options.timeoutMs ?? JUDGE_TIMEOUT_MS,
        signal,
      });
      if (text === null) throw fail(`${name}'s answer is not a chat completion`);
      return text;
    },
  };
}

interface CompletionRequest {
  headers: Record<string, string>;
  json: unknown;
  timeoutMs: number;
  signal?: AbortSignal;
}

/**
 * POSTs chat completion requests to `url` on the one outbound client and returns the answer's
 * `choices[0].message.content` (null when it is not a completion); an unreachable upstream, a missed
 * deadline or an error status is `fail(reason)`.
 */
function completionPoster(name: string, url: string) {
  const http = createOutboundClient({
    name,
    maxResponseBytes: MAX_COMPLETION_BYTES,
    headers: { accept: "application/json" },
  });
  return async (fail: (reason: string) => HttpError, request: CompletionRequest): Promise<string | null> => {
    let answer: OutboundAnswer;
    try {
      answer = await http.request({ method: "POST", url, ...request });
    } catch (err) {
      throw err instanceof OutboundError ? fail(err.message) : err;
    }
    if (!answer.ok) throw fail(statusFailure(name, answer));
    const body = answer.json() as { choices?: { message?: { content?: unknown } }[] } | undefined;
    const content = body?.choices?.[0]?.message?.content;
    return typeof content === "string" ? content : null;
  };
}

/** "<name> answered 429: <message>", the message from OpenAI's `{error: {message}}` or our `{message}`. */
function statusFailure(name: string, answer: OutboundAnswer): string {
  const body = answer.json() as { error?: unknown; message?: unknown } | undefined;
  const inner = typeof body?.error === "object" && body.error !== null ? body.error : body;
  const message = (inner as { message?: unknown } | undefined)?.message;
  return `${name} answered ${answer.status}${typeof message === "string" ? `: ${message.slice(0, 200)}` : ""}`;
}
