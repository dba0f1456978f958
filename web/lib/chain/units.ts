/**
 * Token amounts read from upstreams a user can point the platform at (their saved L1 RPC, an x402 or MPP
 * seller): a raw amount is at most MAX_AMOUNT_DIGITS digits and `decimals` at most MAX_TOKEN_DECIMALS, so
 * scaling and formatting stay small whatever the upstream answers. A `decimals` of 200000 once held the web
 * process for minutes in `10n ** decimals` and viem's formatUnits (a regex over a 200000-character string).
 */
import { z } from "zod";

/** The most decimals any token is read with (ERC-20 tokens use up to 18, SPL tokens up to 9). */
export const MAX_TOKEN_DECIMALS = 36;
/** The longest raw amount read (an SPL amount is a u64, 20 digits; a uint256 has 78, none real that big). */
export const MAX_AMOUNT_DIGITS = 40;

const RAW_AMOUNT = new RegExp(`^\\d{1,${MAX_AMOUNT_DIGITS}}$`);

/** Whether `value` is a raw (atomic-unit) amount of at most MAX_AMOUNT_DIGITS digits. */
export function isRawAmount(value: unknown): value is string {
  return typeof value === "string" && RAW_AMOUNT.test(value);
}

export const rawAmount = z
  .string()
  .refine(isRawAmount, `must be a whole number of at most ${MAX_AMOUNT_DIGITS} digits`);
export const tokenDecimals = z
  .number()
  .int()
  .min(0)
  .max(MAX_TOKEN_DECIMALS, `must be at most ${MAX_TOKEN_DECIMALS}`);

/**
 * `raw / 10^decimals` as a number, by placing the decimal point in the digits: no power of ten is computed
 * and nothing scans more than the amount's own digits (a sum of bounded amounts). Throws a RangeError for
 * decimals outside 0 to MAX_TOKEN_DECIMALS or a negative amount.
 */
export function unitsToNumber(raw: bigint, decimals: number): number {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > MAX_TOKEN_DECIMALS)
    throw new RangeError(`decimals must be 0 to ${MAX_TOKEN_DECIMALS}, not ${decimals}`);
  if (raw < 0n) throw new RangeError("a token amount cannot be negative");
  const digits = raw.toString().padStart(decimals + 1, "0");
  const point = digits.length - decimals;
  return Number(`${digits.slice(0, point)}.${digits.slice(point)}`);
}
