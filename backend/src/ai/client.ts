/**
 * The one client of the AI provider (OpenAI-compatible `POST {AI_PROVIDER_URL}/chat/completions`). Its base
 * URL and key come from configuration, never from users, so calls do not pass the outbound URL guard.
 */
import { createOutboundClient, OutboundError, type OutboundResponse } from "@svc/common";
import type { ChatCompletionRequest } from "./inputs";

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
  const name = `the AI provider (${settings.name})`;
  // A redirect of a POST carrying our key is never expected from the configured provider: refused.
  const client = createOutboundClient({
    name,
    baseUrl: settings.baseUrl,
    timeoutMs: settings.timeoutMs,
    maxResponseBytes: AI_PROVIDER_MAX_RESPONSE_BYTES,
  });
  const failure = (err: unknown): unknown => {
    if (!(err instanceof OutboundError)) return err;
    switch (err.reason) {
      case "timeout":
        return new AiProviderError("timeout", `${name} did not answer within ${settings.timeoutMs} ms`);
      case "aborted":
        return new AiProviderError("aborted", "the client closed the request");
      case "too_large":
        return new AiProviderError("network", err.message);
      default:
        return new AiProviderError("network", `could not reach ${name}: ${err.detail}`);
    }
  };
  return {
    name: settings.name,
    configured: Boolean(settings.apiKey),
    async chatCompletion(request, signal) {
      let res: OutboundResponse;
      try {
        res = await client.open({
          method: "POST",
          url: "/chat/completions",
          headers: {
            authorization: `Bearer ${settings.apiKey ?? ""}`,
            accept: request.stream === true ? "text/event-stream" : "application/json",
          },
          json: request,
          signal,
        });
      } catch (err) {
        throw failure(err);
      }

      const contentType = res.headers["content-type"] ?? "";
      const ok = res.status >= 200 && res.status <= 299;
      if (ok && request.stream === true && contentType.includes("text/event-stream")) {
        const body = res;
        // The timeout runs between two chunks of a stream; stopping early ends the upstream request too.
        async function* chunks(): AsyncGenerator<Uint8Array> {
          try {
            yield* body.stream({ idleTimeout: true });
          } catch (err) {
            throw failure(err);
          }
        }
        return { kind: "stream", status: res.status, chunks: chunks() };
      }

      let text: string;
      try {
        text = (await res.readBody()).toString("utf8");
      } catch (err) {
        throw failure(err);
      }
      return { kind: "json", status: res.status, body: parseJson(text), text };
    },
  };
}

/** Largest complete (non-stream) answer read from the provider. */
const AI_PROVIDER_MAX_RESPONSE_BYTES = 16 * 1024 * 1024;

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
