#!/usr/bin/env node
/**
 * Pre-tool-use hook of an agent container (plain Node ESM, no dependencies; Node 18+ for global fetch).
 *
 * Protocol (the common pre-tool-use hook convention):
 *   stdin   the hook JSON `{tool_name, tool_input, session_id, hook_event_name, ...}`
 *   exit 0  allow the tool call (nothing is printed)
 *   exit 2  block it; the reason is printed on stderr (one line starting with `permission denied:`)
 *
 * It POSTs the hook JSON to the platform's classify endpoint with the agent's gateway token. Safe calls are
 * allowed, destructive ones blocked; a dangerous one waits for its user's decision by long-polling
 * `GET .../decision/<requestId>?wait=<s>` (at most 55 s per poll) until `PERMISSION_WAIT_SECONDS`.
 * Fail-closed: any error, non-2xx answer, malformed answer or timeout denies the call.
 *
 * Environment:
 *   PLATFORM_CLASSIFY_URL    default `${PLATFORM_BACKEND_URL}/api/hooks/classify`; the decision URL is
 *                            `decision/<requestId>` next to it
 *   PLATFORM_BACKEND_URL     the platform backend (used when PLATFORM_CLASSIFY_URL is unset)
 *   OPENCLAW_GATEWAY_TOKEN   the agent's gateway token (Bearer)
 *   PERMISSION_WAIT_SECONDS  how long to wait for a decision in total (default 300)
 */

const CLASSIFY_TIMEOUT_MS = 15_000;
const MAX_POLL_SECONDS = 55;
/** Slack on top of a long-poll's own wait before its request is abandoned. */
const POLL_GRACE_MS = 10_000;
const MAX_STDIN_BYTES = 5 * 1024 * 1024;

function deny(reason) {
  process.stderr.write(`permission denied: ${String(reason).replace(/\s+/g, " ").slice(0, 500)}\n`);
  process.exit(2);
}

function allow() {
  process.exit(0);
}

async function readStdin() {
  const chunks = [];
  let size = 0;
  for await (const chunk of process.stdin) {
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) throw new Error("hook input is too large");
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function classifyUrl(env) {
  if (env.PLATFORM_CLASSIFY_URL) return new URL(env.PLATFORM_CLASSIFY_URL);
  if (env.PLATFORM_BACKEND_URL) {
    return new URL(`${env.PLATFORM_BACKEND_URL.replace(/\/+$/, "")}/api/hooks/classify`);
  }
  throw new Error("PLATFORM_CLASSIFY_URL or PLATFORM_BACKEND_URL must be set");
}

function waitSeconds(env) {
  const raw = env.PERMISSION_WAIT_SECONDS;
  if (raw === undefined || raw === "") return 300;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error("PERMISSION_WAIT_SECONDS must be a number");
  return seconds;
}

/** A JSON request; anything but a 2xx JSON object answer throws. */
async function requestJson(url, init, timeoutMs) {
  let response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs), redirect: "error" });
  } catch (err) {
    throw new Error(
      `the permission endpoint is unreachable (${err?.name === "TimeoutError" ? "timeout" : (err?.message ?? err)})`,
    );
  }
  const text = await response.text();
  if (response.status < 200 || response.status > 299) {
    let message = "";
    try {
      message = JSON.parse(text).message ?? "";
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

async function main() {
  const env = process.env;
  const token = env.OPENCLAW_GATEWAY_TOKEN;
  if (!token) throw new Error("OPENCLAW_GATEWAY_TOKEN is not set");
  const url = classifyUrl(env);
  const deadline = Date.now() + waitSeconds(env) * 1000;

  const raw = await readStdin();
  let hook;
  try {
    hook = JSON.parse(raw);
  } catch {
    throw new Error("the hook input is not valid JSON");
  }
  if (
    typeof hook !== "object" ||
    hook === null ||
    Array.isArray(hook) ||
    typeof hook.tool_name !== "string"
  ) {
    throw new Error("the hook input has no tool_name");
  }

  const headers = { authorization: `Bearer ${token}`, accept: "application/json" };
  const answer = await requestJson(
    url,
    { method: "POST", headers: { ...headers, "content-type": "application/json" }, body: raw },
    CLASSIFY_TIMEOUT_MS,
  );
  if (typeof answer.allow !== "boolean" || typeof answer.tier !== "string") {
    throw new Error("the classify answer is malformed");
  }
  const reason = typeof answer.reason === "string" ? answer.reason : answer.tier;
  if (answer.allow === true) return allow();
  if (answer.tier !== "dangerous" || typeof answer.requestId !== "string") {
    return deny(`${answer.tier}: ${reason}`);
  }

  const decisionUrl = new URL(`decision/${encodeURIComponent(answer.requestId)}`, url);
  for (;;) {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return deny(`no decision within the wait (request ${answer.requestId}): ${reason}`);
    const wait = Math.max(1, Math.min(MAX_POLL_SECONDS, Math.ceil(remaining / 1000)));
    decisionUrl.searchParams.set("wait", String(wait));
    const decision = await requestJson(decisionUrl, { method: "GET", headers }, wait * 1000 + POLL_GRACE_MS);
    if (decision.status === "approved" && decision.allow === true) return allow();
    if (decision.status === "rejected")
      return deny(`rejected by the user (request ${answer.requestId}): ${reason}`);
    if (decision.status === "expired")
      return deny(`the request expired before a decision (request ${answer.requestId}): ${reason}`);
    if (decision.status !== "pending") throw new Error("the decision answer is malformed");
  }
}

main().catch((err) => deny(err instanceof Error ? err.message : String(err)));
