import type { z } from "zod";
import { invalidRequest } from "./errors";

/**
 * Validates a request body (or query) with a zod schema. Not an object → 400; the first issue → 400 with
 * a message naming the field (`unknown field: x` for fields the schema does not know).
 */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw invalidRequest("request body must be a JSON object");
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (issue?.code === "unrecognized_keys") {
    throw invalidRequest(`unknown field: ${issue.keys.join(", ")}`);
  }
  const field = issue?.path.join(".");
  const message = issue?.message ?? "invalid request";
  throw invalidRequest(field && !message.startsWith(field) ? `${field}: ${message}` : message);
}
