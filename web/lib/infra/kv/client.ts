/**
 * Client of a key-value store speaking the common REST protocol (Upstash / Vercel KV style): a command is
 * a JSON array POSTed to the base URL with `Authorization: Bearer <token>`; the answer is `{result}` or
 * `{error}`. The address comes from configuration (KV_REST_API_URL), never from users.
 */
import { createOutboundClient, type OutboundAnswer, OutboundError } from "@svc/common";

/** How long the web waits for the store. */
export const KV_TIMEOUT_MS = 5_000;
const MAX_ANSWER_BYTES = 1024 * 1024;

/** Configured address: no URL guard; redirects refused, answers capped. */
const kvClient = createOutboundClient({ name: "key-value store", maxResponseBytes: MAX_ANSWER_BYTES });

export interface KvConfig {
  url: string;
  token: string;
}

/** The store is configured only when both its URL and its token are set. */
export function kvConfigFrom(config: {
  KV_REST_API_URL?: string;
  KV_REST_API_TOKEN?: string;
}): KvConfig | null {
  if (!config.KV_REST_API_URL || !config.KV_REST_API_TOKEN) return null;
  return { url: config.KV_REST_API_URL, token: config.KV_REST_API_TOKEN };
}

/** The store did not run the command: unreachable, timed out, refused it, or answered something else. */
export class KvError extends Error {
  readonly status: number | null;

  constructor(message: string, status: number | null = null) {
    super(message);
    this.name = "KvError";
    this.status = status;
  }
}

export type KvArgument = string | number;

/** Runs one command, e.g. `["GET", "key"]`, and returns its `result`. */
export async function kvCommand(
  kv: KvConfig,
  command: KvArgument[],
  timeoutMs = KV_TIMEOUT_MS,
): Promise<unknown> {
  let res: OutboundAnswer;
  try {
    res = await kvClient.request({
      method: "POST",
      url: kv.url,
      headers: { authorization: `Bearer ${kv.token}` },
      json: command.map(String),
      timeoutMs,
    });
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.reason === "too_large") throw new KvError("key-value store answer too large", err.status ?? null);
    throw new KvError(
      err.reason === "timeout"
        ? `key-value store timed out after ${timeoutMs} ms`
        : "key-value store unreachable",
    );
  }
  const text = res.text;
  let answer: { result?: unknown; error?: unknown } | undefined;
  try {
    answer = JSON.parse(text);
  } catch {
    // handled below: a non-JSON answer is an error whatever its status
  }
  if (!res.ok || typeof answer !== "object" || answer === null || "error" in answer) {
    const reason = typeof answer?.error === "string" ? `: ${answer.error.slice(0, 200)}` : "";
    throw new KvError(`key-value store answered ${res.status}${reason}`, res.status);
  }
  return answer.result ?? null;
}

/** `SET key value EX ttlSeconds`. */
export async function kvSet(kv: KvConfig, key: string, value: string, ttlSeconds: number): Promise<void> {
  const result = await kvCommand(kv, ["SET", key, value, "EX", ttlSeconds]);
  if (result !== "OK") throw new KvError(`key-value store did not store ${key}`);
}

/** `GET key`: the value, or null when absent. */
export async function kvGet(kv: KvConfig, key: string): Promise<string | null> {
  const result = await kvCommand(kv, ["GET", key]);
  return typeof result === "string" ? result : null;
}
