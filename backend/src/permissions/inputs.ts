/** Inputs of the permission and hook endpoints. */
import { z } from "zod";
import { invalidRequest } from "../http/errors";
import { pageCursor, pageLimit } from "../http/page";

const required = (what: string) => (issue: { input: unknown }) =>
  issue.input === undefined ? "is required" : `must be ${what}`;

const nonEmptyString = z.string({ error: required("a string") }).min(1, "must not be empty");
const toolInput = z.record(z.string(), z.unknown(), { error: "must be an object" });

/** `POST /api/permissions/classify`: `{agentId, toolName, toolInput}` (toolInput defaults to `{}`). */
export const classifyBody = z.object({
  agentId: nonEmptyString,
  toolName: nonEmptyString,
  toolInput: toolInput.optional().default({}),
});

export const PERMISSION_DECISIONS = ["approve", "reject", "approve_always"] as const;

/** `POST /api/permissions`: `feedback` and `modifiedInput` are accepted (clients send them) and unused. */
export const decisionBody = z.strictObject({
  requestId: nonEmptyString,
  decision: z.enum(PERMISSION_DECISIONS, {
    error: (issue) =>
      issue.input === undefined ? "is required" : "must be one of approve, reject, approve_always",
  }),
  feedback: z.string({ error: "must be a string" }).optional(),
  modifiedInput: z.string({ error: "must be a string" }).optional(),
});

export const DEFAULT_LIST_LIMIT = 50;
export const MAX_LIST_LIMIT = 100;

/**
 * `GET /api/permissions` query: optional `agentId`; `limit` 1 to 100 (default 50); `cursor`: the
 * previous page's `nextCursor`.
 */
export const listQuery = z.object({
  agentId: z.string({ error: "must be a single string" }).min(1, "must not be empty").optional(),
  limit: pageLimit(MAX_LIST_LIMIT),
  cursor: pageCursor(decodeListCursor),
});

/** Where a page ends: the last request's `timestamp` and `id` (the list's order). */
export interface ListPosition {
  timestamp: number;
  id: string;
}

/** An opaque `nextCursor`: base64url of `<timestamp>.<id>`. */
export function encodeListCursor(position: ListPosition): string {
  return Buffer.from(`${position.timestamp}.${position.id}`, "utf8").toString("base64url");
}

const CURSOR = /^(\d{1,16})\.([A-Za-z0-9_-]{1,200})$/;

export function decodeListCursor(text: string): ListPosition | null {
  if (text.length > 400 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const match = CURSOR.exec(Buffer.from(text, "base64url").toString("utf8"));
  return match ? { timestamp: Number(match[1]), id: match[2] } : null;
}

export interface HookClassifyInput {
  /** When given, it must be the agent of the presented gateway token. */
  agentId?: string;
  toolName: string;
  toolInput: Record<string, unknown>;
}

/**
 * `POST /api/hooks/classify`: either the platform shape `{agentId?, toolName, toolInput?}` or the common
 * pre-tool-use hook body `{tool_name, tool_input?, session_id?, hook_event_name?, ...}` (other hook fields
 * such as `cwd` or `transcript_path` are ignored). Checked by hand rather than with zod: this is the hot
 * path of every agent tool call, and the two shapes share the same three checks.
 */
export function parseHookClassifyBody(body: unknown): HookClassifyInput {
  if (!isPlainObject(body)) {
    throw invalidRequest("request body must be a JSON object");
  }
  const toolName = body.toolName ?? body.tool_name;
  if (typeof toolName !== "string" || toolName.length === 0) {
    throw invalidRequest("toolName (or tool_name) is required and must be a string");
  }
  const toolInput = body.toolInput ?? body.tool_input ?? {};
  if (!isPlainObject(toolInput)) {
    throw invalidRequest("toolInput (or tool_input) must be an object");
  }
  const { agentId } = body;
  if (agentId !== undefined && (typeof agentId !== "string" || agentId.length === 0)) {
    throw invalidRequest("agentId must be a non-empty string");
  }
  return { agentId, toolName, toolInput };
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The accepted shapes of `POST /api/hooks/classify` as a schema, for the API description: the route keeps
 * `parseHookClassifyBody` (the hot path), which applies exactly these rules.
 */
export const hookClassifyBody = z.union([
  z.looseObject({
    agentId: z.string().min(1).optional(),
    toolName: z.string().min(1),
    toolInput: toolInput.optional(),
  }),
  z.looseObject({
    agentId: z.string().min(1).optional(),
    tool_name: z.string().min(1),
    tool_input: toolInput.optional(),
    session_id: z.string().optional(),
    hook_event_name: z.string().optional(),
  }),
]);

/** `GET /api/hooks/decision/:requestId?wait=<seconds>`: 0 to 55 (larger values are capped), default 0. */
export const decisionWaitQuery = z.object({
  wait: z
    .string({ error: "must be a number of seconds" })
    .regex(/^\d+(\.\d+)?$/, "must be a number of seconds")
    .transform((value) => Math.min(Number(value), 55))
    .optional(),
});

/**
 * `/ws/permissions?userId=&token=`, for the API description; socket.ts reads both itself (a missing
 * `userId` closes the socket with 4001, a bad proof with 4003, which a 400 could not say).
 */
export const permissionSocketQuery = z.object({ userId: z.string(), token: z.string().optional() });
