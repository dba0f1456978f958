import { z } from "zod";

const unknownKeys = {
  error: (issue: { code: string; keys?: string[] }) =>
    issue.code === "unrecognized_keys" ? `unknown field: ${issue.keys?.join(", ")}` : undefined,
};

const optionalString = (name: string) =>
  z
    .string({ error: `${name} must be a string` })
    .max(10_000, `${name} is too long`)
    .optional();

/**
 * `POST /api/permissions`: `requestId` and `decision` required; `feedback` and
 * `modifiedInput` optional strings, accepted and not forwarded (the backend does not use them).
 */
export const decisionBody = z.strictObject(
  {
    requestId: z
      .string({
        error: (i) => (i.input === undefined ? "requestId is required" : "requestId must be a string"),
      })
      .trim()
      .min(1, "requestId is required")
      .max(200, "requestId is too long"),
    decision: z.enum(["approve", "reject", "approve_always"], {
      error: (i) =>
        i.input === undefined ? "decision is required" : "decision must be approve, reject or approve_always",
    }),
    feedback: optionalString("feedback"),
    modifiedInput: optionalString("modifiedInput"),
  },
  unknownKeys,
);
export type DecisionBody = z.infer<typeof decisionBody>;

const optionalQueryText = (name: string, max: number) =>
  z
    .string()
    .trim()
    .max(max, `${name} is too long`)
    .transform((value) => (value === "" ? undefined : value))
    .optional();

/**
 * `GET /api/permissions?agentId=&limit=&cursor=`: an optional agent filter and one page; the backend
 * checks `limit` (1 to 100) and the cursor and its 400 passes through.
 */
export const pendingPageQuery = z.object({
  agentId: optionalQueryText("agentId", 200),
  limit: optionalQueryText("limit", 10),
  cursor: optionalQueryText("cursor", 500),
});
export type PendingPageQuery = z.infer<typeof pendingPageQuery>;

/**
 * `/ws/permissions?userId=&token=` (the WebSocket relayed to the backend), for the API description: the
 * backend checks both (`token`: a ticket from `/api/permissions/ws-ticket`, else the session cookie).
 */
export const permissionSocketQuery = z.object({ userId: z.string(), token: z.string().optional() });

/** A permission request as `GET /api/permissions` lists it (the backend's record). */
export const permissionRequest = z.object({
  id: z.string(),
  agentId: z.string(),
  userId: z.string(),
  toolName: z.string(),
  toolInput: z.record(z.string(), z.unknown()),
  tier: z.enum(["safe", "dangerous", "destructive"]),
  reason: z.string(),
  /** Unix ms. */
  timestamp: z.number(),
  status: z.enum(["pending", "approved", "rejected"]),
});
export type PermissionRequest = z.infer<typeof permissionRequest>;
export type PermissionDecision = DecisionBody["decision"];

/** The frames the permission WebSocket sends. */
export const permissionSocketFrame = z.discriminatedUnion("type", [
  z.object({ type: z.literal("connected"), userId: z.string(), timestamp: z.number() }),
  z.object({
    type: z.literal("permission_request"),
    id: z.string(),
    command: z.string(),
    tier: z.string(),
    reason: z.string(),
    agentId: z.string(),
  }),
  z.object({
    type: z.literal("decision_ack"),
    requestId: z.string(),
    decision: z.string(),
    timestamp: z.number(),
  }),
  z.object({ type: z.literal("heartbeat"), timestamp: z.number() }),
  z.object({ type: z.literal("pong"), timestamp: z.number() }),
  z.object({ type: z.literal("error"), message: z.string(), requestId: z.string().optional() }),
]);
export type PermissionSocketFrame = z.infer<typeof permissionSocketFrame>;
