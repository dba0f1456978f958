"use client";

/**
 * The dashboard's one API client: JSON in and out, same-origin cookies, no cache. A failure throws
 * `ApiError` read from the web's error body `{error: message, code}` (also the runtime paths' relayed
 * `{error: code, message}`), with `retryAfterSeconds` from the body or the `Retry-After` header.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly retryAfterSeconds: number | undefined;
  /** The whole error body, for the fields an area adds (`field`, `jobId`, …). */
  readonly body: Record<string, unknown>;

  constructor(
    status: number,
    code: string,
    message: string,
    retryAfterSeconds?: number,
    body: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.status = status;
    this.code = code;
    this.retryAfterSeconds = retryAfterSeconds;
    this.body = body;
  }
}

export interface ApiInit {
  method?: string;
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
}

export async function api<T>(path: string, init: ApiInit = {}): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: { ...(init.json === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    credentials: "same-origin",
    cache: "no-store",
    signal: init.signal,
  });
  if (res.status === 204) return undefined as T;
  const body = await res.json().catch(() => ({}));
  if (!res.ok) throw apiErrorOf(res, body);
  return body as T;
}

/** The ApiError of a failed response and its (possibly empty) JSON body. */
export function apiErrorOf(res: Response, body: Record<string, unknown>): ApiError {
  const relayed = typeof body.message === "string";
  const message = relayed ? body.message : body.error;
  const code = relayed ? body.error : body.code;
  return new ApiError(
    res.status,
    typeof code === "string" ? code : "error",
    typeof message === "string" && message ? message : `request failed (${res.status})`,
    retryAfterOf(res, body),
    body,
  );
}

function retryAfterOf(res: Response, body: Record<string, unknown>): number | undefined {
  if (typeof body.retryAfterSeconds === "number") return body.retryAfterSeconds;
  const header = res.headers.get("retry-after");
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, Math.ceil(seconds));
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/**
 * The form field an API error is about: the error body's `field` (a JSON path) when the form has it, or
 * the form's field that holds it (`techStack` for `techStack.2`).
 */
export function fieldOf<F extends string>(err: unknown, fields: readonly F[]): F | undefined {
  const field = err instanceof ApiError ? err.body.field : undefined;
  if (typeof field !== "string") return undefined;
  return fields.find((name) => field === name || field.startsWith(`${name}.`));
}

/** A thrown value as a message to show; a 429 says when to try again. */
export function messageOf(err: unknown): string {
  if (err instanceof ApiError && err.status === 429 && err.retryAfterSeconds !== undefined)
    return `${err.message} (try again in ${err.retryAfterSeconds} s)`;
  return err instanceof Error ? err.message : String(err);
}

/** A server type as its JSON arrives in the browser: every `Date` becomes its ISO string. */
export type Json<T> = T extends Date
  ? string
  : T extends (infer U)[]
    ? Json<U>[]
    : T extends object
      ? { [K in keyof T]: Json<T[K]> }
      : T;
