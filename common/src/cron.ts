/**
 * The one cron helper of the platform (web validation and "next run" hints, the backend's scheduler):
 * schedules of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first), read in UTC
 * by cron-parser. cron-parser also takes 4 fields, `""`, `@daily` or `H`: the fields are counted first.
 */
import { CronExpressionParser, type CronFieldCollection } from "cron-parser";

export const CRON_FIELDS_RULE =
  "must have 5 or 6 fields separated by spaces (minute hour day-of-month month day-of-week, optionally seconds first)";

/** Why `schedule` is not a usable cron schedule, or null when it is. */
export function cronScheduleProblem(schedule: string): string | null {
  const fields = schedule.trim().split(/\s+/).filter(Boolean);
  if (fields.length !== 5 && fields.length !== 6) return CRON_FIELDS_RULE;
  try {
    CronExpressionParser.parse(schedule.trim(), { currentDate: new Date(0), tz: "UTC" });
    return null;
  } catch (err) {
    return `is not a valid cron schedule: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/**
 * The first occurrence of `schedule` strictly after `after` (UTC), or null when there is none (or the
 * schedule does not parse).
 */
export function nextCronRun(schedule: string, after: Date): Date | null {
  try {
    return CronExpressionParser.parse(schedule.trim(), { currentDate: after, tz: "UTC" }).next().toDate();
  } catch {
    return null;
  }
}

/** The next `count` occurrences after `after` (fewer when the schedule ends or does not parse). */
export function nextCronRuns(schedule: string, after: Date, count: number): Date[] {
  const runs: Date[] = [];
  let from = after;
  for (let i = 0; i < count; i++) {
    const next = nextCronRun(schedule, from);
    if (!next) break;
    runs.push(next);
    from = next;
  }
  return runs;
}

const DAY_SECONDS = 24 * 60 * 60;

/**
 * The shortest time in seconds between two runs of `schedule`, or null when it does not parse. Read from
 * the schedule's fields, not by running it: the runs of one day (hours x minutes x seconds, the same on
 * every day it runs) and the gap across midnight from a day's last run to the next day's first, counted as
 * if it ran on consecutive days (so a schedule of one run a day is 24 hours apart).
 */
export function shortestCronIntervalSeconds(schedule: string): number | null {
  let fields: CronFieldCollection;
  try {
    fields = CronExpressionParser.parse(schedule.trim(), { currentDate: new Date(0), tz: "UTC" }).fields;
  } catch {
    return null;
  }
  const ascending = (values: readonly unknown[]) =>
    values.filter((v): v is number => typeof v === "number").sort((a, b) => a - b);
  const hours = ascending(fields.hour.values);
  const minutes = ascending(fields.minute.values);
  const seconds = ascending(fields.second.values);
  let first: number | null = null;
  let previous: number | null = null;
  let shortest = DAY_SECONDS;
  for (const h of hours) {
    for (const m of minutes) {
      for (const s of seconds) {
        const at = h * 3600 + m * 60 + s;
        if (previous !== null) shortest = Math.min(shortest, at - previous);
        first ??= at;
        previous = at;
      }
    }
  }
  if (first === null || previous === null) return null;
  return Math.min(shortest, DAY_SECONDS - previous + first);
}
