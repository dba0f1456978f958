#!/usr/bin/env node
/**
 * Pre-tool-use hook of an agent container (plain Node ESM, no dependencies; Node 20+): a stdin/exit-code
 * adapter over the platform guard's one implementation, wrapper/openclaw-plugin/classify.js (the OpenClaw
 * plugin uses the same). Only the development runtime's `--hook-pre-tool-use` calls it; it goes when that
 * runtime goes.
 *
 * Protocol (the common pre-tool-use hook convention):
 *   stdin   the hook JSON `{tool_name, tool_input, session_id, hook_event_name, ...}`
 *   exit 0  allow the tool call (nothing is printed)
 *   exit 2  block it; the reason is printed on stderr (one line starting with `permission denied:`)
 *
 * Environment:
 *   PLATFORM_CLASSIFY_URL    default `${PLATFORM_BACKEND_URL}/api/hooks/classify`
 *   PLATFORM_BACKEND_URL     the platform backend (used when PLATFORM_CLASSIFY_URL is unset)
 *   OPENCLAW_GATEWAY_TOKEN   the agent's gateway token (Bearer)
 *   PERMISSION_WAIT_SECONDS  how long to wait for a decision in total (default 300)
 */
import { askPlatform, denialMessage } from "../../wrapper/openclaw-plugin/classify.js";

const MAX_STDIN_BYTES = 5 * 1024 * 1024;

function deny(reason) {
  process.stderr.write(`${denialMessage(reason)}\n`);
  process.exit(2);
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
  if (env.PLATFORM_CLASSIFY_URL) return env.PLATFORM_CLASSIFY_URL;
  if (env.PLATFORM_BACKEND_URL) return `${env.PLATFORM_BACKEND_URL.replace(/\/+$/, "")}/api/hooks/classify`;
  throw new Error("PLATFORM_CLASSIFY_URL or PLATFORM_BACKEND_URL must be set");
}

function waitSeconds(env) {
  const raw = env.PERMISSION_WAIT_SECONDS;
  if (raw === undefined || raw === "") return undefined;
  const seconds = Number(raw);
  if (!Number.isFinite(seconds) || seconds < 0) throw new Error("PERMISSION_WAIT_SECONDS must be a number");
  return seconds;
}

async function main() {
  const env = process.env;
  if (!env.OPENCLAW_GATEWAY_TOKEN) throw new Error("OPENCLAW_GATEWAY_TOKEN is not set");
  const url = classifyUrl(env);
  const wait = waitSeconds(env);

  let hook;
  try {
    hook = JSON.parse(await readStdin());
  } catch (err) {
    throw err instanceof SyntaxError ? new Error("the hook input is not valid JSON") : err;
  }
  if (
    typeof hook !== "object" ||
    hook === null ||
    Array.isArray(hook) ||
    typeof hook.tool_name !== "string"
  ) {
    throw new Error("the hook input has no tool_name");
  }
  const input = hook.tool_input ?? {};
  const verdict = await askPlatform(
    {
      toolName: hook.tool_name,
      toolInput: input,
      sessionId: typeof hook.session_id === "string" ? hook.session_id : undefined,
    },
    { classifyUrl: url, token: env.OPENCLAW_GATEWAY_TOKEN, waitSeconds: wait },
  );
  if (verdict.allow) process.exit(0);
  deny(verdict.reason);
}

main().catch((err) => deny(err instanceof Error ? err.message : String(err)));
