import { z } from "zod";

/** Longest caller label (`companyId`). */
export const COMPANY_ID_MAX = 64;

const text = z.string().trim();
const present = (value: unknown) => typeof value === "string" && value.trim() !== "";

/** The `action` of GET and POST /api/agent/mpp. */
export const walletGetActions = ["list-wallets", "get-wallet", "get-balance", "list-payments"] as const;
export const walletPostActions = ["create-wallet", "register-wallet", "make-payment"] as const;

export const walletQuery = z.object({
  action: z.enum(walletGetActions).optional(),
  agentId: z.string().optional(),
});

/** POST bodies: `action` picks the shape; the fixed 400 messages come from the service's presence checks. */
export const walletPostBody = z.looseObject({ action: z.unknown().optional() });

export const createWalletInput = z.object({
  agentId: text,
  companyId: text
    .max(COMPANY_ID_MAX, `companyId must be 1 to ${COMPANY_ID_MAX} characters`)
    .meta({ title: "Label" }),
});
export type CreateWalletInput = z.infer<typeof createWalletInput>;

/** The order of secp256k1: a private key is an integer in [1, n). */
const SECP256K1_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const INVALID_PRIVATE_KEY = "Private key is not a valid secp256k1 private key (1 to the curve order)";

const PRIVATE_KEY_HEX = /^(0x)?[0-9a-fA-F]{64}$/;

export const registerWalletInput = createWalletInput.extend({
  privateKey: text.regex(PRIVATE_KEY_HEX, "privateKey must be a 32-byte hex string").refine((key) => {
    // Zero or past the order is no key: viem would throw with the number in its message.
    if (!PRIVATE_KEY_HEX.test(key)) return true;
    const n = BigInt(`0x${key.slice(-64)}`);
    return n >= 1n && n < SECP256K1_ORDER;
  }, INVALID_PRIVATE_KEY),
});
export type RegisterWalletInput = z.infer<typeof registerWalletInput>;

export const PAYMENT_METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
const BODY_METHODS = PAYMENT_METHODS.filter((m) => m !== "GET");
/** RFC 9110 token: what `Headers` accepts as a name. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** What both `Headers` and node:http accept in a value: no line breaks or other control characters, Latin-1. */
const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

const paymentHeaders = z
  .record(z.string(), z.string(), "headers must be an object of strings")
  .superRefine((headers, ctx) => {
    for (const [name, value] of Object.entries(headers)) {
      // The value is never echoed: it may be a credential.
      if (!HEADER_NAME.test(name))
        ctx.addIssue({
          code: "custom",
          message: `headers: ${JSON.stringify(name)} is not a valid header name`,
        });
      else if (!HEADER_VALUE.test(value))
        ctx.addIssue({
          code: "custom",
          message: `headers: the value of ${name} has a character HTTP does not allow (a line break, a control character or a non-Latin-1 character)`,
        });
    }
  });

/** make-payment's fields (the OpenAPI body); `makePaymentInput` adds the rules between fields. */
export const makePaymentFields = z.object({
  agentId: text,
  url: text.max(2048, "url must be at most 2048 characters"),
  method: z
    .string()
    .transform((m) => m.toUpperCase())
    .pipe(z.enum(PAYMENT_METHODS, `method must be one of ${PAYMENT_METHODS.join(", ")}`))
    .default("GET"),
  headers: paymentHeaders.default({}),
  body: z.record(z.string(), z.unknown(), "body must be an object").optional(),
});
export const makePaymentInput = makePaymentFields.superRefine((input, ctx) => {
  if (input.body !== undefined && !(BODY_METHODS as readonly string[]).includes(input.method))
    ctx.addIssue({
      code: "custom",
      path: ["body"],
      message: `needs method ${BODY_METHODS.join(", ")} (method is ${input.method})`,
    });
});
export type MakePaymentInput = z.infer<typeof makePaymentInput>;

/** Fields that must be non-empty strings, or the fixed message. */
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
