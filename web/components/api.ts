"use client";

/** Calls the web API from a page: JSON in and out; throws ApiError carrying the server's `{error, code}`. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function api<T>(
  path: string,
  init: { method?: string; json?: unknown; headers?: Record<string, string> } = {},
): Promise<T> {
  const res = await fetch(path, {
    method: init.method ?? (init.json === undefined ? "GET" : "POST"),
    headers: { ...(init.json === undefined ? {} : { "content-type": "application/json" }), ...init.headers },
    body: init.json === undefined ? undefined : JSON.stringify(init.json),
    credentials: "same-origin",
  });
  const body = await res.json().catch(() => ({}));
  if (!res.ok)
    throw new ApiError(res.status, body.code ?? "error", body.error ?? `request failed (${res.status})`);
  return body as T;
}

/** Which form field a server message is about (`email ...`, `password ...`), if any. */
export function fieldOf(message: string, fields: string[]): string | undefined {
  return fields.find((field) => message.toLowerCase().startsWith(field.toLowerCase()));
}

/** A thrown value as a message to show. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
