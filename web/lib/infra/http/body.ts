import type { z } from "zod";
import { badContentType, invalidBody, invalidJson, invalidRequest, payloadTooLarge } from "./codes";
import { fieldLabel } from "./field-names";

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

/**
 * Validates with a zod schema; the first issue becomes a 400 naming the field as forms do (see issueOf).
 * With `keys`, the message names the field by its JSON path instead (`max_tokens: must be …`): for an API
 * whose callers write the JSON themselves (the v1 gateway's OpenAI-style bodies), where no form names it.
 */
export function parseWith<S extends z.ZodType>(
  schema: S,
  value: unknown,
  { keys = false }: { keys?: boolean } = {},
): z.infer<S> {
  const parsed = schema.safeParse(value, { error: defaultIssueWords });
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  if (!issue) throw invalidRequest("invalid request");
  if (keys) {
    const field = issue.path.map(String).join(".");
    const message = issue.message || "invalid request";
    throw invalidRequest(
      field && !message.includes(field) ? `${field}: ${message}` : message,
      field || undefined,
    );
  }
  const { message, field } = issueOf(schema, issue);
  throw invalidRequest(message, field);
}

/**
 * An issue as the error body says it: `field` is its JSON path (`cronSchedule`, `response.id`) and the
 * message starts with the field's name in words ("Schedule must have 5 or 6 fields"); a message that
 * starts with the key (`name must …`) has the key replaced. An issue of the whole body (an unknown
 * field) has no `field`.
 */
export function issueOf(schema: z.ZodType, issue: z.core.$ZodIssue): { message: string; field?: string } {
  const message = issue.message || "invalid request";
  if (issue.path.length === 0) return { message };
  const field = issue.path.map(String).join(".");
  const label = fieldLabel(schema, issue.path);
  if (message.startsWith(label)) return { message, field };
  // The path, then its keys from the innermost: `techStack item must …` is about `techStack.2`.
  const keys = issue.path.filter((key): key is string => typeof key === "string").reverse();
  for (const named of [field, ...keys]) {
    if (message === named) return { message: label, field };
    if (message.startsWith(`${named}: `))
      return { message: `${label}: ${message.slice(named.length + 2)}`, field };
    if (message.startsWith(`${named} `)) return { message: `${label}${message.slice(named.length)}`, field };
  }
  // "must be …" reads on from the name; anything else ("a body needs …") is said after it.
  return { message: PREDICATE.test(message) ? `${label} ${message}` : `${label}: ${message}`, field };
}

const PREDICATE = /^(must|is|are|has|have|may|can|cannot|should|needs?|was|were|does|do)\b/;

const TYPE_WORDS: Record<string, string> = {
  string: "text",
  number: "a number",
  int: "a whole number",
  boolean: "true or false",
  object: "an object",
  array: "a list",
};

/**
 * The words of the issues a schema leaves to zod's defaults ("Too big: expected string to have <=200
 * characters"), as a fragment after the field's name: "must be at most 200 characters". A schema's own
 * message wins over these.
 */
function defaultIssueWords(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      return `must be ${TYPE_WORDS[issue.expected] ?? issue.expected}`;
    case "too_big": {
      const limit = Number(issue.maximum);
      if (issue.origin === "string") return `must be at most ${limit} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `must have at most ${limit} items`;
      return issue.inclusive === false ? `must be less than ${limit}` : `must be at most ${limit}`;
    }
    case "too_small": {
      const limit = Number(issue.minimum);
      if (issue.origin === "string")
        return limit <= 1 ? "must not be empty" : `must be at least ${limit} characters`;
      if (issue.origin === "array" || issue.origin === "set") return `must have at least ${limit} items`;
      return issue.inclusive === false ? `must be more than ${limit}` : `must be at least ${limit}`;
    }
    case "invalid_value":
      return `must be ${issue.values.length === 1 ? "" : "one of "}${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "email"
        ? "must be an email address"
        : issue.format === "url"
          ? "must be a URL"
          : `must be ${issue.format === "regex" ? "in the expected format" : `a valid ${issue.format}`}`;
    case "unrecognized_keys":
      return `unknown field: ${issue.keys.join(", ")}`;
    default:
      return undefined;
  }
}
