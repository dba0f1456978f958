import { z } from "zod";

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

/** `POST /api/platform-jobs/chat`. `gatewayUrl` is validated for the spec's shape but never fetched. */
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
