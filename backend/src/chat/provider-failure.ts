/**
 * OpenClaw's `/v1/chat/completions` reports a failed run (its AI provider failed, after its own retries) as an
 * ordinary answer: HTTP 200, `finish_reason: "stop"`, no header or field marking it, the error text as the
 * assistant's content and zero usage (checked on 2026.4.11: `openai-http` drops the run's `isError` flag).
 * What is left to tell it from a reply is the text, which OpenClaw writes in a few fixed ways
 * (`formatAssistantErrorText`, `sanitize-user-facing-text`, the runner's fallbacks in its dist):
 */

/** OpenClaw's own sentences for a failed run: a failure whatever the usage says. */
const FAILURE_SENTENCES: RegExp[] = [
  // "LLM request failed.", "… failed: connection refused by the provider endpoint.", "… rejected: <why>",
  // "… timed out.", "… rate limited.", "… unauthorized.", "… failed with an unknown error."
  /^LLM request (?:failed|rejected|timed out|rate limited|unauthorized)\b/,
  /^⚠️ API rate limit reached\./,
  /^⚠️ .{0,200}\breturned a billing error\b/,
  /^The AI service is temporarily (?:unavailable|overloaded)\b/,
  /^The AI service returned an error\. Please try again\./,
  /^Request failed after repeated internal retries\./,
  /^Context overflow: prompt too large for the model\./,
  /^Authentication (?:refresh failed|is missing the required|failed with an HTML 403)/,
  /^Message ordering conflict - please try again\./,
  /^Session history (?:looks corrupted|or replay state is invalid)/,
  /^Reasoning is required for this model endpoint\./,
];

/**
 * Shapes of a provider's raw error passed on by OpenClaw: `<status> <provider's message>` (the OpenAI SDK's
 * words, e.g. "502 the AI provider (openrouter) failed with HTTP 500"), `HTTP <status>: …`, `LLM error
 * <type>: …`, `⚠️ <provider's rate-limit message>`, its empty-run and stream-failure fallbacks. A model could
 * answer like that, so these count only when the run reported no tokens at all.
 */
const FAILURE_SHAPES: RegExp[] = [
  /^(?:HTTP )?[1-5]\d\d(?::? )\S/,
  /^LLM error\b/,
  /^⚠️ /,
  /^No response from OpenClaw\.$/,
  /^Error: internal error$/,
];

/**
 * The reply's text when it is OpenClaw's report of a failed run rather than an answer, else null. `usage`
 * is the answer's (OpenAI's `usage`; absent counts as none).
 */
export function runtimeFailureOf(reply: string, usage: unknown): string | null {
  const text = reply.trim();
  if (FAILURE_SENTENCES.some((sentence) => sentence.test(text))) return text;
  if (!reportedNoTokens(usage)) return null;
  return FAILURE_SHAPES.some((shape) => shape.test(text)) ? text : null;
}

function reportedNoTokens(usage: unknown): boolean {
  if (typeof usage !== "object" || usage === null) return true;
  const { prompt_tokens, completion_tokens, total_tokens } = usage as Record<string, unknown>;
  return [prompt_tokens, completion_tokens, total_tokens].every((n) => n === undefined || n === 0);
}
