import { z } from "zod";

/** `PATCH /api/user/radio-wallet` body: `{wallet}` required; 0x + 40 hex (stored lower-case), or null / "" to unlink. */
export const radioWalletBody = z.strictObject({
  wallet: z
    .union(
      [
        z.null(),
        z.literal(""),
        z
          .string()
          .trim()
          .regex(/^0x[0-9a-fA-F]{40}$/, "wallet must be 0x followed by 40 hex characters")
          .transform((w) => w.toLowerCase()),
      ],
      {
        error: (issue) =>
          issue.input === undefined
            ? "wallet is required"
            : "wallet must be 0x followed by 40 hex characters, null or empty",
      },
    )
    .meta({ title: "Radio wallet" }),
});

export const radioWalletSchema = z.object({ wallet: z.string().nullable() }).meta({ id: "RadioWallet" });

export const djStatsSchema = z
  .union([
    z.object({ linked: z.literal(false) }),
    z.object({
      linked: z.literal(true),
      wallet: z.string(),
      dj: z
        .object({
          name: z.string().nullable(),
          slug: z.string().nullable(),
          avatar: z.string().nullable(),
          followers: z.number(),
          genres: z.array(z.string()),
        })
        .nullable(),
      stats: z
        .object({
          totalShows: z.number(),
          totalListeners: z.number(),
          totalTipsUsdc: z.number(),
          isLive: z.boolean(),
        })
        .nullable(),
      error: z.string().optional(),
    }),
  ])
  .meta({ id: "DjStats" });
export type DjStats = z.infer<typeof djStatsSchema>;
