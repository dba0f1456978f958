import { z } from "zod";

/** Longest caller label (`companyId`). */
export const COMPANY_ID_MAX = 64;

const text = z.string().trim();
const present = (value: unknown) => typeof value === "string" && value.trim() !== "";

/** The `action` of GET and POST /api/agent/mpp. */
export const walletGetActions = ["list-wallets", "get-wallet", "get-balance"] as const;
export const walletPostActions = ["create-wallet", "register-wallet", "make-payment"] as const;

export const walletQuery = z.object({
  action: z.enum(walletGetActions).optional(),
  agentId: z.string().optional(),
});

/** POST bodies: `action` picks the shape; the spec's 400 messages come from the service's presence checks. */
export const walletPostBody = z.looseObject({ action: z.unknown().optional() });

export const createWalletInput = z.object({
  agentId: text,
  companyId: text.max(COMPANY_ID_MAX, `companyId must be 1 to ${COMPANY_ID_MAX} characters`),
});
export type CreateWalletInput = z.infer<typeof createWalletInput>;

export const registerWalletInput = createWalletInput.extend({
  privateKey: text.regex(/^(0x)?[0-9a-fA-F]{64}$/, "privateKey must be a 32-byte hex string"),
});
export type RegisterWalletInput = z.infer<typeof registerWalletInput>;

export const PAYMENT_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
export const makePaymentInput = z.object({
  agentId: text,
  url: text.max(2048, "url must be at most 2048 characters"),
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(PAYMENT_METHODS, `method must be one of ${PAYMENT_METHODS.join(", ")}`))
    .default("GET"),
  headers: z.record(z.string(), z.string(), "headers must be an object of strings").default({}),
  body: z.record(z.string(), z.unknown(), "body must be an object").optional(),
});
export type MakePaymentInput = z.infer<typeof makePaymentInput>;

/** Fields that must be non-empty strings, or the spec's message. */
export function requireFields(input: Record<string, unknown>, fields: readonly string[]): boolean {
  return fields.every((f) => present(input[f]));
}

export const agentWalletSchema = z
  .object({ agentId: z.string(), companyId: z.string(), address: z.string() })
  .meta({ id: "AgentWallet" });
export type AgentWalletView = z.infer<typeof agentWalletSchema>;

export const paymentRecordSchema = z
  .object({
    id: z.string(),
    agentId: z.string(),
    host: z.string(),
    method: z.string(),
    protocol: z.string().nullable(),
    network: z.string().nullable(),
    asset: z.string().nullable(),
    recipient: z.string().nullable(),
    amountUsd: z.string().nullable(),
    outcome: z.enum(["pending", "refused", "paid", "failed", "error"]),
    reason: z.string().nullable(),
    reference: z.string().nullable(),
    status: z.number().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "AgentPayment" });
export type PaymentRecord = z.infer<typeof paymentRecordSchema>;

export const paymentResultSchema = z.object({
  success: z.literal(true),
  result: z.object({
    status: z.number(),
    headers: z.record(z.string(), z.string()),
    body: z.unknown(),
  }),
  payment: paymentRecordSchema.nullable(),
});
export type PaymentResult = z.infer<typeof paymentResultSchema>;
