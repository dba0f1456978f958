/**
 * The backend's calls to an agent's admin surface, on the one agent client of `@svc/common`
 * (`requestAgent`: the agent's stored URL, redirects refused, a deadline over the whole exchange, a capped
 * answer): the wrapper's admin API (`GET`/`POST /api/config`, Bearer: the wrapper's admin password) and the
 * agent's `POST /api/memory/reset` (Bearer: the gateway token). Each goes out only once the wrapper proved
 * it is the agent's (its admin password is the key: `identityKey`). The probe, the chat processor, the
 * watchdog and the local hosting platform call `requestAgent` themselves.
 */

import { type AgentAnswer, AgentCallError, requestAgent } from "@svc/common";

export const AGENT_CALL_TIMEOUT_MS = 10_000;
export const MEMORY_RESET_TIMEOUT_MS = 30_000;

export interface AgentClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

/** What a call to the agent's own API carries: its gateway token, and its wrapper's admin password to prove. */
export interface AgentCredentials {
  token: string;
  adminPassword: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function call(
  baseUrl: string,
  credentials: { token: string; identityKey: string },
  method: "GET" | "POST",
  path: string,
  body: unknown,
  options: AgentClientOptions,
): Promise<{ status: number; body: unknown }> {
  let answer: AgentAnswer;
  try {
    answer = await requestAgent(baseUrl, {
      method,
      path,
      token: credentials.token,
      identityKey: credentials.identityKey,
      body,
      timeoutMs: options.timeoutMs ?? AGENT_CALL_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes,
    });
  } catch (err) {
    const failed = err as AgentCallError;
    throw new AgentCallError(`${method} ${path}: ${failed.message}`, failed.status, failed.reason, {
      cause: failed.cause,
    });
  }
  let parsed: unknown;
  try {
    parsed = answer.text ? JSON.parse(answer.text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: answer.status, body: parsed ?? answer.text };
}

function failure(method: string, path: string, status: number, body: unknown): AgentCallError {
  const detail = isObject(body) && typeof body.error === "string" ? `: ${body.error}` : "";
  return new AgentCallError(`${method} ${path}: the agent answered HTTP ${status}${detail}`, status);
}

/** The runtime configuration (secrets redacted by the wrapper); null when the agent has no config file yet. */
export async function readAgentConfig(
  baseUrl: string,
  adminPassword: string,
  options: AgentClientOptions = {},
): Promise<Json | null> {
  const admin = { token: adminPassword, identityKey: adminPassword };
  const res = await call(baseUrl, admin, "GET", "/api/config", undefined, options);
  if (res.status === 404) return null;
  if (res.status !== 200 || !isObject(res.body) || !isObject(res.body.config))
    throw failure("GET", "/api/config", res.status, res.body);
  return res.body.config;
}

/** Writes the whole runtime configuration (redacted secrets sent back unchanged keep their values). */
export async function writeAgentConfig(
  baseUrl: string,
  adminPassword: string,
  config: Json,
  options: AgentClientOptions = {},
): Promise<void> {
  const admin = { token: adminPassword, identityKey: adminPassword };
  const res = await call(baseUrl, admin, "POST", "/api/config", config, options);
  if (res.status !== 200) throw failure("POST", "/api/config", res.status, res.body);
}

/** Deletes every stored memory of the agent; returns how many the runtime deleted (null when not said). */
export async function resetAgentMemory(
  baseUrl: string,
  credentials: AgentCredentials,
  options: AgentClientOptions = {},
): Promise<{ deleted: number | null }> {
  const agent = { token: credentials.token, identityKey: credentials.adminPassword };
  // Every session is deleted over the runtime's RPC, one by one: more than an ordinary call's deadline.
  const res = await call(
    baseUrl,
    agent,
    "POST",
    "/api/memory/reset",
    {},
    {
      timeoutMs: MEMORY_RESET_TIMEOUT_MS,
      ...options,
    },
  );
  if (res.status < 200 || res.status >= 300) throw failure("POST", "/api/memory/reset", res.status, res.body);
  const deleted = isObject(res.body) && typeof res.body.deleted === "number" ? res.body.deleted : null;
  return { deleted };
}
