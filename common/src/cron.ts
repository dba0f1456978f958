/**
 * The one cron helper of the platform (web validation and "next run" hints, the backend's scheduler):
 * schedules of 5 fields (minute hour day-of-month month day-of-week) or 6 (seconds first), read in UTC
 * by cron-parser. cron-parser also takes 4 fields, `""`, `@daily` or `H`: the fields are counted first.
 */
import { CronExpressionParser } from "cron-parser";

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
