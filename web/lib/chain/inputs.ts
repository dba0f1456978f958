import { z } from "zod";

const required = (issue: { input: unknown }) =>
  issue.input === undefined ? "is required" : "must be a string";

/** A base58 Solana address, 32 to 44 characters. */
export const solanaAddress = z
  .string({ error: required })
  .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, "address must be a base58 address of 32 to 44 characters");

/** `GET /api/l1/wallet` and `GET /api/l1/verify` query; the former `rpc` parameter is ignored. */
export const l1AddressQuery = z.object({ address: solanaAddress, rpc: z.string().optional() });

/** `POST /api/l1/rpc-config` body. */
export const rpcConfigBody = z.strictObject({
  rpcUrl: z.string({ error: required }).trim().min(1, "is required"),
});

export const l1PriceSchema = z
  .object({
    price: z.number().nullable(),
    change24h: z.number().nullable(),
    marketCap: z.number().nullable(),
    volume24h: z.number().nullable(),
  })
  .meta({ id: "L1Price" });
export type L1Price = z.infer<typeof l1PriceSchema>;

export const l1TokenSchema = z.object({
  mint: z.string(),
  symbol: z.string(),
  amount: z.number(),
  decimals: z.number().int(),
});
export const l1WalletSchema = z
  .object({
    address: z.string(),
    solBalance: z.number(),
    tokens: z.array(l1TokenSchema),
    accountInfo: z.object({
      isExecutable: z.boolean(),
      owner: z.string().nullable(),
      rentEpoch: z.number().nullable(),
    }),
  })
  .meta({ id: "L1Wallet" });
export type L1Wallet = z.infer<typeof l1WalletSchema>;

export const l1TierSchema = z.object({
  name: z.string(),
  min: z.number(),
  credits: z.number(),
  basefm: z.string(),
});
export const l1VerifySchema = z
  .object({
    address: z.string(),
    token: z.string(),
    balance: z.number(),
    eligible: z.boolean(),
    benefits: z.array(z.object({ tier: z.string(), perk: z.string() })),
    tiers: z.array(l1TierSchema),
  })
  .meta({ id: "L1Verify" });
export type L1Verify = z.infer<typeof l1VerifySchema>;

export const rpcConfigSchema = z
  .object({ rpcUrl: z.string(), defaultRpcUrl: z.string(), source: z.enum(["user", "default"]) })
  .meta({ id: "L1RpcConfig" });
export type RpcConfig = z.infer<typeof rpcConfigSchema>;
