/**
 * The calls the platform makes to an agent through its URL (the wrapper): the wrapper's admin API
 * (`GET`/`POST /api/config`) and the runtime gateway's `POST /api/memory/reset`, all with
 * `Authorization: Bearer <gateway token>` (the wrapper's admin password is the same token).
 */

export const AGENT_CALL_TIMEOUT_MS = 10_000;

/** An agent call that failed: unreachable, timed out, or answered with an error status. */
export class AgentCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = "AgentCallError";
  }
}

export interface AgentClientOptions {
  timeoutMs?: number;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

async function call(
  baseUrl: string,
  token: string | null,
  method: "GET" | "POST",
  path: string,
  body: unknown,
  options: AgentClientOptions,
): Promise<{ status: number; body: unknown }> {
  const timeoutMs = options.timeoutMs ?? AGENT_CALL_TIMEOUT_MS;
  const url = `${baseUrl.replace(/\/+$/, "")}${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        accept: "application/json",
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
      redirect: "manual",
    });
  } catch (err) {
    if ((err as Error).name === "TimeoutError")
      throw new AgentCallError(`${method} ${path}: the agent did not answer within ${timeoutMs / 1000} s`);
    const code = (err as { cause?: { code?: string } }).cause?.code;
    throw new AgentCallError(
      `${method} ${path}: the agent could not be reached (${code ?? (err as Error).message})`,
    );
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = undefined;
  }
  return { status: res.status, body: parsed ?? text };
}

function failure(method: string, path: string, status: number, body: unknown): AgentCallError {
  const detail = isObject(body) && typeof body.error === "string" ? `: ${body.error}` : "";
  return new AgentCallError(`${method} ${path}: the agent answered HTTP ${status}${detail}`, status);
}

/** The runtime configuration (secrets redacted by the wrapper); null when the agent has no config file yet. */
export async function readAgentConfig(
  baseUrl: string,
  token: string | null,
  options: AgentClientOptions = {},
): Promise<Json | null> {
  const res = await call(baseUrl, token, "GET", "/api/config", undefined, options);
  if (res.status === 404) return null;
  if (res.status !== 200 || !isObject(res.body) || !isObject(res.body.config))
    throw failure("GET", "/api/config", res.status, res.body);
  return res.body.config;
}

/** Writes the whole runtime configuration (redacted secrets sent back unchanged keep their values). */
export async function writeAgentConfig(
  baseUrl: string,
  token: string | null,
  config: Json,
  options: AgentClientOptions = {},
): Promise<void> {
  const res = await call(baseUrl, token, "POST", "/api/config", config, options);
  if (res.status !== 200) throw failure("POST", "/api/config", res.status, res.body);
}

/** Deletes every stored memory of the agent; returns how many the runtime deleted (null when not said). */
export async function resetAgentMemory(
  baseUrl: string,
  token: string,
  options: AgentClientOptions = {},
): Promise<{ deleted: number | null }> {
  const res = await call(baseUrl, token, "POST", "/api/memory/reset", {}, options);
  if (res.status < 200 || res.status >= 300) throw failure("POST", "/api/memory/reset", res.status, res.body);
  const deleted = isObject(res.body) && typeof res.body.deleted === "number" ? res.body.deleted : null;
  return { deleted };
}
