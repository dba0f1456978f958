/**
 * Money of the gateway: integer micro-USD (`bigint`) inside, a decimal string outside (`"0.05"`), never a
 * float. The database keeps `numeric(18, 6)` USD, which these convert exactly.
 */
import type { Plugin } from "./plugins";

export const MICROS_PER_USD = 1_000_000n;

/** `"0.05"` → 50000n. Throws on anything but a plain non-negative decimal with at most 6 decimals. */
export function usdToMicros(usd: string): bigint {
  const match = /^(\d+)(?:\.(\d{1,6}))?$/.exec(usd.trim());
  if (!match) throw new Error(`not a USD amount: ${usd}`);
  return BigInt(match[1]) * MICROS_PER_USD + BigInt((match[2] ?? "").padEnd(6, "0"));
}

/** 50000n → `"0.05"`; 5000000n → `"5.00"` (at least two decimals, trailing zeros beyond them dropped). */
export function microsToUsd(micros: bigint): string {
  const sign = micros < 0n ? "-" : "";
  const abs = micros < 0n ? -micros : micros;
  const whole = abs / MICROS_PER_USD;
  const fraction = (abs % MICROS_PER_USD).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${sign}${whole}.${fraction}`;
}

/** A `numeric` column's text (`"4.950000"`) in micro-USD. */
export function numericToMicros(value: string): bigint {
  return usdToMicros(value);
}

/** The price of one call of a plugin. */
export function priceOf(plugin: Plugin): { micros: bigint; usd: string } {
  return { micros: plugin.priceMicros, usd: microsToUsd(plugin.priceMicros) };
}
