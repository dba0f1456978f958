/**
 * `runtimeFailureOf` on replies the real OpenClaw 2026.4.11 gave through `/v1/chat/completions` (HTTP 200,
 * verbatim, usage all zero), its provider being this backend's AI proxy or a loopback provider failing in
 * each way, and on ordinary answers that look a little like them.
 */
import { describe, expect, it } from "vitest";
import { runtimeFailureOf } from "./provider-failure";

const none = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };
const some = { prompt_tokens: 812, completion_tokens: 40, total_tokens: 852 };

describe("runtimeFailureOf", () => {
  it("knows the failed runs the real runtime reported", () => {
    const seen = [
      // The AI proxy: provider 5xx, budget spent, no provider, unreachable.
      "502 the AI provider (openrouter) failed with HTTP 500",
      '⚠️ the "pro" plan allows 1 AI requests per hour; try again in 1311 s',
      "503 AI_PROVIDER_KEY is not configured",
      "LLM request failed: network connection error.",
      // A provider answering 429, 400, 401, 402, 500, 503 itself.
      "⚠️ API rate limit reached. Please try again later.",
      "LLM request failed: provider rejected the request schema or tool payload.",
      "401 fake provider failure 401",
      "402 provider failure 402",
      "500 provider failure 500",
      "503 provider failure 503",
    ];
    for (const reply of seen) expect(runtimeFailureOf(reply, none), reply).toBe(reply);
  });

  it("knows OpenClaw's own failure sentences whatever the usage (a run can fail after a tool step)", () => {
    for (const reply of [
      "LLM request failed.",
      "LLM request timed out.",
      "LLM request rate limited.",
      "LLM request unauthorized.",
      "LLM request rejected: model not found",
      "LLM request failed: connection refused by the provider endpoint.",
      "The AI service is temporarily overloaded. Please try again in a moment.",
      "The AI service is temporarily unavailable (HTTP 522). Please try again in a moment.",
      "Request failed after repeated internal retries. Please try again, or use /new to start a fresh session.",
      "Context overflow: prompt too large for the model. Try /reset (or /new) to start a fresh session, or use a larger-context model.",
      "⚠️ platform (gpt-4o) returned a billing error — your API key has run out of credits or has an insufficient balance. Check your platform billing dashboard and top up or switch to a different API key.",
    ]) {
      expect(runtimeFailureOf(reply, some), reply).toBe(reply);
    }
  });

  it("a raw error shape counts only when the run reported no tokens", () => {
    for (const reply of [
      "HTTP 404: no such model",
      "LLM error api_error: upstream exploded",
      "No response from OpenClaw.",
    ]) {
      expect(runtimeFailureOf(reply, none), reply).toBe(reply);
      expect(runtimeFailureOf(reply, undefined), reply).toBe(reply);
      expect(runtimeFailureOf(reply, some), reply).toBeNull();
    }
  });

  it("ordinary answers are answers", () => {
    for (const reply of [
      "404 errors mean the page is missing.",
      "⚠️ Careful: that command deletes files.",
      "The LLM request failed yesterday, you said?",
      "Hello! How can I help?",
    ]) {
      expect(runtimeFailureOf(reply, some), reply).toBeNull();
    }
    expect(runtimeFailureOf("Hello! How can I help?", none)).toBeNull();
  });
});
