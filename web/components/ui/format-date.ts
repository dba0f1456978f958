/**
 * The dashboard's one way of writing a moment: the reader's locale and time zone ("Apr 20, 2026, 9:30 AM"
 * in en-US, "20 avr. 2026, 09:30" in fr-FR). `date` leaves the time out (a trial's last day), `time` the
 * date (a chat message's minute); `zone` names the time zone where it matters (a task's schedule is in
 * UTC, its runs are shown in the reader's zone, which is then said).
 */
export interface DateFormat {
  style?: "datetime" | "date" | "time";
  zone?: boolean;
}

const PARTS: Record<NonNullable<DateFormat["style"]>, Intl.DateTimeFormatOptions> = {
  datetime: { year: "numeric", month: "short", day: "numeric", hour: "numeric", minute: "2-digit" },
  date: { year: "numeric", month: "short", day: "numeric" },
  time: { hour: "numeric", minute: "2-digit" },
};

/** What is written for a moment that is not there (never run, never used). */
export const NO_DATE = "—";

export function formatWith(
  value: string | number | Date | null | undefined,
  { style = "datetime", zone = false }: DateFormat,
  locale: string | undefined,
  timeZone: string | undefined,
): string {
  if (value === null || value === undefined || value === "") return NO_DATE;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return NO_DATE;
  const options: Intl.DateTimeFormatOptions = { ...PARTS[style], timeZone };
  if (zone && style !== "date") options.timeZoneName = "short";
  return new Intl.DateTimeFormat(locale, options).format(date);
}

/** `value` in the reader's locale and time zone (see DateFormat); "—" when there is none. */
export function formatDate(
  value: string | number | Date | null | undefined,
  format: DateFormat = {},
): string {
  return formatWith(value, format, undefined, undefined);
}
