import { z } from "zod";

/** A USD amount as a decimal string, e.g. `"5.00"`. */
export const usdAmount = z
  .string({ error: "must be a USD amount string such as 5.00" })
  .regex(/^\d{1,9}(\.\d{1,6})?$/, "must be a USD amount such as 5.00 (at most 6 decimals)");

/** `POST /api/v1/gateway` body: `plugin` (default `agent`); every other field goes to the plugin as sent. */
export const gatewayBody = z.looseObject({
  plugin: z.string({ error: "must be a string" }).min(1, "must not be empty").max(64).optional(),
});

export const paymentMethod = z.enum(["stripe", "mpp", "session"]);
export type PaymentMethod = z.infer<typeof paymentMethod>;

/** The 402 `payment_required` body. */
export const paymentRequiredBody = z
  .object({
    error: z.literal("payment_required"),
    message: z.string(),
    mpp: z
      .object({
        scheme: z.literal("Payment"),
        amount: z.string(),
        currency: z.string(),
        recipient: z.string(),
        description: z.string(),
        nonce: z.string(),
        expiresAt: z.number(),
      })
      .optional(),
    stripe: z.object({ checkoutUrl: z.string(), amount: z.string(), currency: z.string() }),
  })
  .meta({ id: "GatewayPaymentRequired" });

/** `POST /api/wallet/sessions` body: the deposit paid by the MPP credential in `Authorization: Payment`. */
export const openSessionBody = z.object({ deposit: usdAmount });

export const paymentSessionView = z
  .object({
    sessionId: z.string(),
    walletAddress: z.string(),
    balance: z.string(),
    expiresAt: z.string(),
  })
  .meta({ id: "PaymentSession" });
export type PaymentSessionView = z.infer<typeof paymentSessionView>;

export const sessionIdParam = z.object({ id: z.string() });
export const walletAddressHeader = z.object({
  "X-Wallet-Address": z.string().regex(/^0x[0-9a-fA-F]{40}$/, "must be a 0x-prefixed 20-byte hex address"),
});

/** `GET /api/v1/payments/card/create?plugin=<id>`. */
export const checkoutQuery = z.object({ plugin: z.string().max(64).optional() });

/** The dashboard's billing view: card credit, whether card payments work, and the price list. */
export const pluginPrice = z.object({
  id: z.string(),
  name: z.string(),
  streaming: z.boolean(),
  auth: z.boolean(),
  price: z.string(),
  available: z.boolean(),
  /** Why it is not available: `no_upstream` (none configured) or `no_ai_provider` (the platform has none). */
  unavailableReason: z.enum(["no_upstream", "no_ai_provider"]).nullable(),
});
export const billingOverview = z
  .object({
    credit: z.string(),
    cardConfigured: z.boolean(),
    creditPack: z.string(),
    mppConfigured: z.boolean(),
    plugins: z.array(pluginPrice),
  })
  .meta({ id: "GatewayBilling" });
export type BillingOverview = z.infer<typeof billingOverview>;
