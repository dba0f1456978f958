/**
 * The one way the backend calls an agent: at the URL stored in its `agents` row (never one taken from a
 * request or a job), with `redirect: "error"` (a redirect could carry the gateway token elsewhere), a
 * deadline over the whole exchange and a cap on the answer's size. On top of it, the wrapper's admin API
 * (`GET`/`POST /api/config`) and the runtime gateway's `POST /api/memory/reset`, all with
 * `Authorization: Bearer <gateway token>` (the wrapper's admin password is the same token).
 */

export const AGENT_CALL_TIMEOUT_MS = 10_000;
/** Largest answer read from an agent (after decompression); more fails the call. */
export const AGENT_MAX_RESPONSE_BYTES = 1024 * 1024;

export type AgentCallFailure = "timeout" | "aborted" | "unreachable" | "redirect" | "too_large";

/** An agent call that failed: unreachable, timed out, redirected, too large, or answered with an error status. */
export class AgentCallError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly reason?: AgentCallFailure,
  ) {
    super(message);
    this.name = "AgentCallError";
  }
}

export interface AgentClientOptions {
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface AgentRequest {
  method: "GET" | "POST";
  /** Path on the agent's URL, starting with `/`. */
  path: string;
  token: string | null;
  /** Sent as JSON when present. */
  body?: unknown;
  timeoutMs: number;
  maxResponseBytes?: number;
  /** Gives the call up early (e.g. the job's claim was lost). */
  signal?: AbortSignal;
  /** Who the messages name: "the agent" unless told (e.g. "the agent gateway"). */
  subject?: string;
}

export interface AgentAnswer {
  status: number;
  text: string;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Calls `baseUrl` + `request.path`; any status is an answer, everything else an AgentCallError. */
export async function requestAgent(baseUrl: string, request: AgentRequest): Promise<AgentAnswer> {
  const subject = request.subject ?? "the agent";
  const maxBytes = request.maxResponseBytes ?? AGENT_MAX_RESPONSE_BYTES;
  const deadline = AbortSignal.timeout(request.timeoutMs);
  const signal = request.signal ? AbortSignal.any([request.signal, deadline]) : deadline;
  const url = `${baseUrl.replace(/\/+$/, "")}${request.path}`;
  const fail = (err: unknown): AgentCallError => {
    if (err instanceof AgentCallError) return err;
    if (deadline.aborted)
      return new AgentCallError(
        `${subject} did not answer within ${request.timeoutMs / 1000} s`,
        undefined,
        "timeout",
      );
    if (request.signal?.aborted)
      return new AgentCallError(`the call to ${subject} was given up`, undefined, "aborted");
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if (cause?.message === "unexpected redirect")
      return new AgentCallError(
        `${subject} answered with a redirect, which is not followed`,
        undefined,
        "redirect",
      );
    return new AgentCallError(
      `${subject} could not be reached (${cause?.code ?? (err as Error).message})`,
      undefined,
      "unreachable",
    );
  };
  let res: Response;
  try {
    res = await fetch(url, {
      method: request.method,
      headers: {
        accept: "application/json",
        ...(request.token ? { authorization: `Bearer ${request.token}` } : {}),
        ...(request.body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: request.body === undefined ? undefined : JSON.stringify(request.body),
      signal,
      redirect: "error",
    });
  } catch (err) {
    throw fail(err);
  }
  try {
    return { status: res.status, text: await readLimited(res, maxBytes, subject) };
  } catch (err) {
    throw fail(err);
  }
}

/**
 * Reads a fetch response's (decompressed) body, refusing more than `maxBytes`: by `Content-Length` before
 * reading when the body is not compressed, and by counting while reading otherwise.
 */
export async function readLimited(res: Response, maxBytes: number, subject = "the agent"): Promise<string> {
  const tooLarge = () =>
    new AgentCallError(`${subject}'s answer is larger than ${maxBytes} bytes`, res.status, "too_large");
  const declared = Number(res.headers.get("content-length") ?? Number.NaN);
  if (!res.headers.get("content-encoding") && Number.isFinite(declared) && declared > maxBytes) {
    await res.body?.cancel().catch(() => undefined);
    throw tooLarge();
  }
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw tooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}

async function call(
  baseUrl: string,
  token: string | null,
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
      token,
      body,
      timeoutMs: options.timeoutMs ?? AGENT_CALL_TIMEOUT_MS,
      maxResponseBytes: options.maxResponseBytes,
    });
  } catch (err) {
    const failed = err as AgentCallError;
    throw new AgentCallError(`${method} ${path}: ${failed.message}`, failed.status, failed.reason);
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
