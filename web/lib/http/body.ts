import type { z } from "zod";
import { badContentType, invalidBody, invalidJson, invalidRequest, payloadTooLarge } from "./codes";

/** Largest request body a route reads unless it says otherwise. */
export const MAX_BODY_BYTES = 1024 * 1024;
/** Largest body of a public route (sign-up, sign-in, passkey sign-in, anything unauthenticated). */
export const MAX_PUBLIC_BODY_BYTES = 64 * 1024;

export interface BodyLimit {
  /** Default MAX_BODY_BYTES. */
  maxBytes?: number;
}

/**
 * The request body, at most `maxBytes`: a declared `Content-Length` over the limit is refused before
 * anything is read, and the stream is read with a running count, so a body without a length (chunked)
 * is cut off as soon as it passes the limit. 413 either way. The one place a web route reads a body.
 */
export async function readBody(
  request: Request,
  { maxBytes = MAX_BODY_BYTES }: BodyLimit = {},
): Promise<Buffer> {
  const declared = Number(request.headers.get("content-length") ?? 0);
  if (declared > maxBytes) throw payloadTooLarge();
  if (!request.body) return Buffer.alloc(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      throw payloadTooLarge();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** The request body as UTF-8 text, at most `maxBytes` (see readBody). */
export async function readText(request: Request, limit: BodyLimit = {}): Promise<string> {
  return (await readBody(request, limit)).toString("utf8");
}

/**
 * Reads a JSON object body and validates it: 400 naming the problem for a non-JSON content type, bad
 * JSON, a non-object, or a field that fails the schema; 413 over `maxBytes` (default 1 MB). With
 * `optional`, an empty body stands for `{}` (routes whose fields are all optional).
 */
export async function readJson<S extends z.ZodType>(
  request: Request,
  schema: S,
  { maxBytes, optional = false }: BodyLimit & { optional?: boolean } = {},
): Promise<z.infer<S>> {
  const isJson = /^application\/json\b/i.test(request.headers.get("content-type") ?? "");
  if (!isJson && !optional) throw badContentType();
  const text = await readText(request, { maxBytes });
  if (optional && text.trim() === "") return parseWith(schema, {});
  if (!isJson) throw badContentType();
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalidJson();
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw invalidBody();
  }
  return parseWith(schema, value);
}

/** Validates with a zod schema; the first issue becomes a 400 naming the field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown): z.infer<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".");
  const message = issue?.message ?? "invalid request";
  throw invalidRequest(field && !namesField(message, field) ? `${field}: ${message}` : message);
}

/**
 * Whether a message names the field already: its key anywhere (`newPassword`), or its words at the start
 * ("New password must …"; "is not a valid cron schedule" does not name `cronSchedule`).
 */
function namesField(message: string, field: string): boolean {
  const squeezed = (text: string) => text.toLowerCase().replace(/\s+/g, "");
  return message.includes(field) || squeezed(message).startsWith(squeezed(field));
}
