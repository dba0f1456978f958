/** Display formats of the chain page (numbers from the API stay numbers; only their text is shaped here). */
const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD", maximumFractionDigits: 2 });
const compactUsd = new Intl.NumberFormat("en-US", {
  style: "currency",
  currency: "USD",
  notation: "compact",
  maximumFractionDigits: 2,
});
const amount = new Intl.NumberFormat("en-US", { maximumFractionDigits: 9 });

export const formatUsd = (value: number | null) => (value === null ? "—" : usd.format(value));
export const formatCompactUsd = (value: number | null) => (value === null ? "—" : compactUsd.format(value));
export const formatAmount = (value: number) => amount.format(value);
export const formatPercent = (value: number | null) =>
  value === null ? "—" : `${value > 0 ? "+" : ""}${value.toFixed(2)} %`;
