import { platformJobStatuses, platformJobTypes } from "@svc/db/schema";
import { z } from "zod";
import { pageCursor, pageLimit } from "../http/page";
import type { UserJobPosition } from "./sql";

const requiredString = (name: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .trim()
    .min(1, `${name} is required`);

/** `POST /api/platform-jobs/provision`. */
export const provisionJobSchema = z.strictObject({
  userId: requiredString("userId"),
  email: requiredString("email"),
  agentId: requiredString("agentId"),
  plan: z.string("plan must be a string").trim().min(1).default("solo"),
  aiProvider: z.string("aiProvider must be a string").trim().min(1).default("openrouter"),
  agentType: z.string("agentType must be a string").trim().min(1).default("creative"),
  autoProvision: z.boolean("autoProvision must be a boolean").default(false),
  paymentsSubscriptionId: z
    .string("paymentsSubscriptionId must be a string or null")
    .nullable()
    .default(null),
});
export type ProvisionJobInput = z.infer<typeof provisionJobSchema>;

/** `POST /api/platform-jobs/chat`. `gatewayUrl` is validated (callers send it) but never fetched. */
export const chatJobSchema = z.strictObject({
  userId: requiredString("userId"),
  agentId: requiredString("agentId"),
  gatewayUrl: requiredString("gatewayUrl").pipe(
    z.url({ protocol: /^https?$/, error: "gatewayUrl must be an http(s) URL" }),
  ),
  message: requiredString("message").pipe(z.string().max(32_000, "message must be at most 32000 characters")),
  systemPrompt: z.string("systemPrompt must be a string or null").max(32_000).nullable().default(null),
});
export type ChatJobInput = z.infer<typeof chatJobSchema>;

export const JOB_ID_PATTERN = /^job_\d{13}_[0-9a-z]{10}$/;

export const DEFAULT_JOB_LIST_LIMIT = 20;
export const MAX_JOB_LIST_LIMIT = 100;

/**
 * `GET /api/platform-jobs?limit=&cursor=&type=&status=` (the signed user's jobs): `limit` 1 to 100 (default
 * 20), `cursor` the previous page's `nextCursor`, optional job type and status filters.
 */
export const jobListQuery = z.strictObject({
  limit: pageLimit(MAX_JOB_LIST_LIMIT),
  cursor: pageCursor(decodeJobCursor),
  type: z.enum(platformJobTypes, { error: `must be one of ${platformJobTypes.join(", ")}` }).optional(),
  status: z
    .enum(platformJobStatuses, { error: `must be one of ${platformJobStatuses.join(", ")}` })
    .optional(),
});
export type JobListQuery = z.infer<typeof jobListQuery>;

/** An opaque `nextCursor`: base64url of `<created_at in µs>.<id>`. */
export function encodeJobCursor(position: UserJobPosition): string {
  return Buffer.from(`${position.createdAtMicros}.${position.id}`, "utf8").toString("base64url");
}

const JOB_CURSOR = /^(-?\d{1,17})\.(job_[0-9a-z_]{1,60})$/;

export function decodeJobCursor(text: string): UserJobPosition | null {
  if (text.length > 200 || !/^[A-Za-z0-9_-]+$/.test(text)) return null;
  const match = JOB_CURSOR.exec(Buffer.from(text, "base64url").toString("utf8"));
  return match ? { createdAtMicros: BigInt(match[1]), id: match[2] } : null;
}
