import { HttpError } from "@svc/common";
import type { z } from "zod";

const DEFAULT_MAX_BODY_BYTES = 64 * 1024;

/**
 * Reads a JSON object body and validates it: 400 naming the problem for a non-JSON content type, bad
 * JSON, a non-object, or a field that fails the schema; 413 over `maxBytes` (default 64 KB).
 */
export async function readJson<S extends z.ZodType>(
  request: Request,
  schema: S,
  { maxBytes = DEFAULT_MAX_BODY_BYTES }: { maxBytes?: number } = {},
): Promise<z.infer<S>> {
  const type = request.headers.get("content-type") ?? "";
  if (!/^application\/json\b/i.test(type)) {
    throw new HttpError(400, "bad_content_type", "Content-Type must be application/json");
  }
  const text = await request.text();
  if (Buffer.byteLength(text) > maxBytes)
    throw new HttpError(413, "payload_too_large", "request body is too large");
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new HttpError(400, "invalid_json", "request body is not valid JSON");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new HttpError(400, "invalid_body", "request body must be a JSON object");
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
  throw new HttpError(
    400,
    "invalid_request",
    field && !message.includes(field) ? `${field}: ${message}` : message,
  );
}
