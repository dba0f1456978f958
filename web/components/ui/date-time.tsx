"use client";

import { type DateFormat, formatDate, formatWith, NO_DATE } from "./format-date";
import { useHydrated } from "./hydrated";

/**
 * A moment as a `<time>` element, written by formatDate. The server's HTML cannot know the reader's locale
 * and zone: until the page's script runs it says the moment in UTC (en-US), then in the reader's own.
 */
export function DateTime({
  value,
  testId,
  ...format
}: DateFormat & { value: string | number | Date | null | undefined; testId?: string }) {
  const hydrated = useHydrated();
  if (value === null || value === undefined || value === "") return <>{NO_DATE}</>;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return <>{NO_DATE}</>;
  const text = hydrated
    ? formatDate(date, format)
    : formatWith(date, { ...format, zone: true }, "en-US", "UTC");
  return (
    <time dateTime={date.toISOString()} data-testid={testId}>
      {text}
    </time>
  );
}
