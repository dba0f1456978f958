import { HttpError } from "@svc/common";
import { z } from "zod";

/** `POST /api/validate-key` body: `{key}` (a string; any string, a malformed one is simply not valid). */
export const validateKeyBody = z.strictObject({
  key: z.string({ error: (issue) => (issue.input === undefined ? "is required" : "must be a string") }),
});

export type ValidateKeyInput = z.infer<typeof validateKeyBody>;

/** Parses a JSON body with a schema: 400 `invalid_request` naming the first bad field. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new HttpError(400, "invalid_request", "request body must be a JSON object");
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const field = issue?.path.join(".");
  const message = issue?.message ?? "invalid request";
  throw new HttpError(400, "invalid_request", field ? `${field}: ${message}` : message);
}
