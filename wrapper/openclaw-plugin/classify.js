// @ts-check
/**
 * Asks the platform whether one tool call may run: the one implementation of "ask the platform", behind
 * the OpenClaw plugin's handler (index.js). Plain ESM, no dependencies, Node 20+ globals (fetch,
 * AbortSignal.any).
 *
 * It POSTs the common pre-tool-use hook JSON `{tool_name, tool_input, session_id, hook_event_name}` to the
 * platform's classify endpoint (`POST /api/hooks/classify`) with the agent's gateway token as Bearer. The
 * answer is `{allow, tier, reason, requestId?}`: safe calls are allowed, destructive ones denied; a
 * dangerous one waits for its user's decision by long-polling `GET decision/<requestId>?wait=<s>` (next to
 * the classify URL, at most 55 s per poll) until the wait is over.
 *
 * Fail-closed: a missing token or URL, an unreachable endpoint, a timeout, a non-2xx or malformed answer,
 * a cancelled call and any error deny the call. It never throws, and never puts the token in a reason.
 */

export const DEFAULT_WAIT_SECONDS = 300;
export const DEFAULT_CLASSIFY_TIMEOUT_MS = 15_000;
const MAX_POLL_SECONDS = 55;
/** Slack on top of a long-poll's own wait before its request is abandoned. */
export const POLL_GRACE_MS = 10_000;
const MAX_REASON_LENGTH = 500;

/**
 * @typedef {object} ToolCall
 * @property {string} toolName
 * @property {Record<string, unknown>} toolInput
 * @property {string} [sessionId]
 */

/**
 * @typedef {object} AskOptions
 * @property {string | URL | undefined} classifyUrl `…/api/hooks/classify`
 * @property {string | undefined} token the agent's gateway token (`OPENCLAW_GATEWAY_TOKEN`)
 * @property {number} [waitSeconds] how long to wait for a person's decision in total (default 300)
 * @property {number} [classifyTimeoutMs] how long the classify request may take (default 15 s)
 * @property {AbortSignal} [signal] the call was cancelled: stop waiting and deny
 */

/** @typedef {{allow: true} | {allow: false, reason: string}} Verdict */

/**
 * Whether the platform allows `call`. Never throws: every failure (an error thrown below) is a denial
 * with the error's message as its reason.
 * @param {ToolCall} call
 * @param {AskOptions} options
 * @returns {Promise<Verdict>}
 */
export async function askPlatform(call, options) {
  try {
    return await ask(call, options);
  } catch (err) {
    return { allow: false, reason: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * The one line a denied call reports: `permission denied: <reason>` (whitespace folded, at most 500
 * characters of reason).
 * @param {string} reason
 */
export function denialMessage(reason) {
  return `permission denied: ${String(reason).replace(/\s+/g, " ").trim().slice(0, MAX_REASON_LENGTH)}`;
}

/**
 * @param {ToolCall} call
 * @param {AskOptions} options
 * @returns {Promise<Verdict>}
 */
async function ask(call, options) {
  const { token, signal } = options;
  if (typeof token !== "string" || token === "") {
    throw new Error("the agent's gateway token (OPENCLAW_GATEWAY_TOKEN) is not set");
  }
  const url = classifyUrlOf(options.classifyUrl);
  const waitSeconds = numberOption(options.waitSeconds, DEFAULT_WAIT_SECONDS, "waitSeconds");
  const classifyTimeoutMs = numberOption(
    options.classifyTimeoutMs,
    DEFAULT_CLASSIFY_TIMEOUT_MS,
    "classifyTimeoutMs",
  );
  const deadline = Date.now() + waitSeconds * 1000;
  if (typeof call.toolName !== "string" || call.toolName === "") throw new Error("the tool call has no name");

  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
  const body = JSON.stringify({
    tool_name: call.toolName,
    tool_input: call.toolInput,
    ...(call.sessionId ? { session_id: call.sessionId } : {}),
    hook_event_name: "PreToolUse",
  });
  const answer = await requestJson(
    url,
    { method: "POST", headers: { ...headers, "content-type": "application/json" }, body },
    classifyTimeoutMs,
    signal,
  );
  if (typeof answer.allow !== "boolean" || typeof answer.tier !== "string") {
    throw new Error("the classify answer is malformed");
  }
  const reason = typeof answer.reason === "string" ? answer.reason : answer.tier;
  if (answer.allow === true) return { allow: true };
  if (answer.tier !== "dangerous" || typeof answer.requestId !== "string") {
    return { allow: false, reason: `${answer.tier}: ${reason}` };
  }

  const requestId = answer.requestId;
  const decisionUrl = new URL(`decision/${encodeURIComponent(requestId)}`, url);
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) {
      return { allow: false, reason: `no decision within the wait (request ${requestId}): ${reason}` };
    }
    const wait = Math.max(1, Math.min(MAX_POLL_SECONDS, Math.ceil(remaining / 1000)));
    decisionUrl.searchParams.set("wait", String(wait));
    const decision = await requestJson(
      decisionUrl,
      { method: "GET", headers },
      wait * 1000 + POLL_GRACE_MS,
      signal,
    );
    if (decision.status === "approved" && decision.allow === true) return { allow: true };
    if (decision.status === "rejected") {
      return { allow: false, reason: `rejected by the user (request ${requestId}): ${reason}` };
    }
    if (decision.status === "expired") {
      return {
        allow: false,
        reason: `the request expired before a decision (request ${requestId}): ${reason}`,
      };
    }
    if (decision.status !== "pending") throw new Error("the decision answer is malformed");
  }
}

/** @param {string | URL | undefined} value */
function classifyUrlOf(value) {
  if (value === undefined || value === "") throw new Error("the classify URL (classifyUrl) is not set");
  try {
    const url = new URL(value);
    if (url.protocol === "http:" || url.protocol === "https:") return url;
  } catch {}
  throw new Error("the classify URL (classifyUrl) is not an http(s) URL");
}

/**
 * @param {unknown} value
 * @param {number} fallback
 * @param {string} name
 */
function numberOption(value, fallback, name) {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0) {
    throw new Error(`${name} must be a number of at least 0`);
  }
  return value;
}

/**
 * A JSON request; anything but a 2xx answer with a JSON object throws a denial.
 * @param {URL} url
 * @param {RequestInit} init
 * @param {number} timeoutMs
 * @param {AbortSignal | undefined} cancelled
 * @returns {Promise<Record<string, unknown>>}
 */
async function requestJson(url, init, timeoutMs, cancelled) {
  if (cancelled?.aborted) throw new Error("the tool call was cancelled");
  const timeout = AbortSignal.timeout(timeoutMs);
  const signal = cancelled ? AbortSignal.any([timeout, cancelled]) : timeout;
  let response;
  let text;
  try {
    response = await fetch(url, { ...init, signal, redirect: "error" });
    text = await response.text();
  } catch (err) {
    if (cancelled?.aborted) throw new Error("the tool call was cancelled");
    const why = timeout.aborted ? "timeout" : err instanceof Error ? err.message : String(err);
    throw new Error(`the permission endpoint is unreachable (${why})`);
  }
  if (response.status < 200 || response.status > 299) {
    let message = "";
    try {
      const parsed = JSON.parse(text);
      if (typeof parsed?.message === "string") message = parsed.message;
    } catch {}
    throw new Error(`the permission endpoint answered ${response.status}${message ? `: ${message}` : ""}`);
  }
  let body;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error("the permission endpoint answered malformed JSON");
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Error("the permission endpoint answered malformed JSON");
  }
  return body;
}
