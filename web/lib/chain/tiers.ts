/** The platform token's holder tiers (GET /api/l1/verify). */
export const HOLDER_TIERS = [
  { name: "Holder", min: 1_000, credits: 50, basefm: "exclusive DJ streams" },
  { name: "Builder", min: 10_000, credits: 100, basefm: "early features and premium playlists" },
  { name: "Whale", min: 100_000, credits: 200, basefm: "VIP chat, voting, revenue share" },
] as const;

/** Balance at least this is eligible (the lowest tier). */
export const ELIGIBLE_MIN_BALANCE = HOLDER_TIERS[0].min;

/** Every tier at or below the balance, as `{tier, perk}`. */
export function benefitsOf(balance: number): { tier: string; perk: string }[] {
  return HOLDER_TIERS.filter((t) => balance >= t.min).map((t) => ({ tier: t.name, perk: t.basefm }));
}
