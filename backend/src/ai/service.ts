import { type AiProviderClient, AiProviderError } from "./client";
import {
  aiProviderUnconfigured,
  clientClosedRequest,
  providerAnsweredWithoutJson,
  providerFailed,
  providerRefused,
  providerTimeout,
  providerUnreachable,
} from "./errors";
import type { ChatCompletionRequest } from "./inputs";

export type ChatAnswer =
  | { kind: "json"; status: number; body: unknown }
  | { kind: "stream"; status: number; chunks: AsyncIterable<Uint8Array> };

/**
 * Forwards a chat completion to the AI provider. 2xx and 4xx answers come back with the provider's status
 * and body (a 2xx stream as it arrives; a 4xx without JSON is thrown with its status and text); 503
 * `ai_provider_unconfigured` without `AI_PROVIDER_KEY`; a 5xx (or other unusable) answer is 502
 * `ai_provider_error`; unreachable is 502 `ai_provider_unreachable`; no answer in time is 504
 * `ai_provider_timeout`.
 */
export async function forwardChatCompletion(
  client: AiProviderClient,
  request: ChatCompletionRequest,
  signal: AbortSignal,
): Promise<ChatAnswer> {
  requireConfiguredProvider(client);
  let answer: Awaited<ReturnType<AiProviderClient["chatCompletion"]>>;
  try {
    answer = await client.chatCompletion(request, signal);
  } catch (err) {
    throw providerFailure(err);
  }
  if (answer.kind === "stream") return answer;

  const { status, body, text } = answer;
  if (status >= 200 && status < 300) {
    if (body === undefined) {
      throw providerAnsweredWithoutJson(client.name);
    }
    return { kind: "json", status, body };
  }
  if (status >= 400 && status < 500) {
    // The provider's own error body tells the caller what was wrong with its request; without one, its
    // status and text go through the error mapper like any failure of ours.
    if (body !== undefined) return { kind: "json", status, body };
    throw providerRefused(client.name, status, text.slice(0, 200));
  }
  throw providerFailed(client.name, status);
}

/** 503 `ai_provider_unconfigured` without `AI_PROVIDER_KEY`. */
export function requireConfiguredProvider(client: AiProviderClient): void {
  if (!client.configured) {
    throw aiProviderUnconfigured();
  }
}

/** How a failed exchange is reported: to our caller, or as an error event inside a stream. */
export function providerFailure(err: unknown): unknown {
  if (!(err instanceof AiProviderError)) return err;
  switch (err.kind) {
    case "timeout":
      return providerTimeout(err.message);
    case "network":
      return providerUnreachable(err.message);
    case "aborted":
      // Nobody is listening any more; 499 only shows in the request log.
      return clientClosedRequest(err.message);
  }
}
