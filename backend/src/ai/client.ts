/**
 * The one client of the AI provider (OpenAI-compatible `POST {AI_PROVIDER_URL}/chat/completions`). Its base
 * URL and key come from configuration, never from users, so calls do not pass the outbound URL guard.
 */
import type { ChatCompletionRequest } from "./schema";

export interface AiProviderSettings {
  /** `AI_PROVIDER`, used in messages. */
  name: string;
  /** `AI_PROVIDER_URL`, e.g. `https://openrouter.ai/api/v1`. */
  baseUrl: string;
  /** `AI_PROVIDER_KEY`; unset: the client is not configured. */
  apiKey: string | undefined;
  /** `AI_PROVIDER_TIMEOUT_MS`: until the whole JSON answer, or between two chunks of a stream. */
  timeoutMs: number;
}

/** The exchange failed without an HTTP answer: `timeout`, `network` (unreachable), or `aborted` by our caller. */
export class AiProviderError extends Error {
  readonly kind: "timeout" | "network" | "aborted";

  constructor(kind: AiProviderError["kind"], message: string) {
    super(message);
    this.name = "AiProviderError";
    this.kind = kind;
  }
}

export type ProviderAnswer =
  /** A complete answer; `body` is undefined when it was not JSON (`text` holds it then). */
  | { kind: "json"; status: number; body: unknown; text: string }
  /** A 2xx `text/event-stream` answer, read as it arrives. */
  | { kind: "stream"; status: number; chunks: AsyncIterable<Uint8Array> };

export interface AiProviderClient {
  readonly name: string;
  readonly configured: boolean;
  /** Sends one chat completion request; `signal` aborts it (the client of our route went away). */
  chatCompletion(request: ChatCompletionRequest, signal: AbortSignal): Promise<ProviderAnswer>;
}

export function createAiProviderClient(settings: AiProviderSettings): AiProviderClient {
  const url = `${settings.baseUrl.replace(/\/+$/, "")}/chat/completions`;
  return {
    name: settings.name,
    configured: Boolean(settings.apiKey),
    async chatCompletion(request, signal) {
      const controller = new AbortController();
      let timedOut = false;
      let timer: NodeJS.Timeout | undefined;
      const restartTimer = () => {
        clearTimeout(timer);
        timer = setTimeout(() => {
          timedOut = true;
          controller.abort();
        }, settings.timeoutMs);
      };
      const onCallerAbort = () => controller.abort();
      const finish = () => {
        clearTimeout(timer);
        signal.removeEventListener("abort", onCallerAbort);
      };
      const failure = (err: unknown): AiProviderError => {
        finish();
        if (timedOut) {
          return new AiProviderError(
            "timeout",
            `the AI provider (${settings.name}) did not answer within ${settings.timeoutMs} ms`,
          );
        }
        if (signal.aborted) return new AiProviderError("aborted", "the client closed the request");
        return new AiProviderError(
          "network",
          `could not reach the AI provider (${settings.name}): ${describeNetworkError(err)}`,
        );
      };

      if (signal.aborted) throw new AiProviderError("aborted", "the client closed the request");
      signal.addEventListener("abort", onCallerAbort, { once: true });
      restartTimer();
      let res: Response;
      try {
        res = await fetch(url, {
          method: "POST",
          headers: {
            authorization: `Bearer ${settings.apiKey ?? ""}`,
            "content-type": "application/json",
            accept: request.stream === true ? "text/event-stream" : "application/json",
          },
          body: JSON.stringify(request),
          signal: controller.signal,
          // A redirect of a POST carrying our key is never expected from the configured provider.
          redirect: "error",
        });
      } catch (err) {
        throw failure(err);
      }

      const contentType = res.headers.get("content-type") ?? "";
      if (res.ok && request.stream === true && res.body && contentType.includes("text/event-stream")) {
        const reader = res.body.getReader();
        async function* chunks(): AsyncGenerator<Uint8Array> {
          try {
            for (;;) {
              restartTimer();
              const { done, value } = await reader.read();
              if (done) return;
              yield value;
            }
          } catch (err) {
            throw failure(err);
          } finally {
            finish();
            // Stopped early (our client left, or a failure): make sure the upstream request ends too.
            controller.abort();
            reader.cancel().catch(() => undefined);
          }
        }
        return { kind: "stream", status: res.status, chunks: chunks() };
      }

      let text: string;
      try {
        text = await res.text();
      } catch (err) {
        throw failure(err);
      }
      finish();
      return { kind: "json", status: res.status, body: parseJson(text), text };
    },
  };
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const NETWORK_ERRORS: Record<string, string> = {
  ECONNREFUSED: "connection refused",
  ECONNRESET: "connection reset",
  ENOTFOUND: "host not found",
  EAI_AGAIN: "host name lookup failed",
  EHOSTUNREACH: "host unreachable",
  ENETUNREACH: "network unreachable",
  ETIMEDOUT: "connection timed out",
  UND_ERR_SOCKET: "connection closed",
};

/** fetch reports `TypeError: fetch failed` with the socket error as its cause. */
function describeNetworkError(err: unknown): string {
  const cause = (err as { cause?: unknown }).cause ?? err;
  const code = (cause as { code?: unknown }).code;
  if (typeof code === "string") return NETWORK_ERRORS[code] ? `${NETWORK_ERRORS[code]} (${code})` : code;
  return cause instanceof Error ? cause.message : String(cause);
}
