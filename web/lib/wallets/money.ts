/** Money inside is integer micro-USD (bigint); outside a decimal string. */

/** Integer micro-USD as a decimal string with 2 to 6 decimals (`1.00`, `0.0125`). */
export function formatMicroUsd(micro: bigint): string {
  const whole = micro / 1_000_000n;
  const fraction = (micro % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "").padEnd(2, "0");
  return `${whole}.${fraction}`;
}
