/** The three tiers of the classification, and how parts of a command line combine. */
export type Tier = "safe" | "dangerous" | "destructive";

export interface Classification {
  tier: Tier;
  /** Human-readable, names the rule that decided (for example "recursive delete of /"). */
  reason: string;
  /** Stable rule name (for example "recursive-root-delete"). */
  rule: string;
}

export const TIER_RANK: Readonly<Record<Tier, number>> = { safe: 0, dangerous: 1, destructive: 2 };

export function verdict(tier: Tier, rule: string, reason: string): Classification {
  return { tier, rule, reason };
}

export const safe = (rule: string, reason: string): Classification => verdict("safe", rule, reason);
export const dangerous = (rule: string, reason: string): Classification => verdict("dangerous", rule, reason);
export const destructive = (rule: string, reason: string): Classification =>
  verdict("destructive", rule, reason);

/** The more severe of two verdicts; on a tie the first one (the earlier part of the line) is kept. */
export function worse(a: Classification, b: Classification): Classification {
  return TIER_RANK[b.tier] > TIER_RANK[a.tier] ? b : a;
}

/** Arguments shown in reasons are cut so a reason stays one short line. */
export function shown(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
