/**
 * A schedule in words for the dashboard ("every day at 09:30 UTC") and its next runs, from the one cron
 * helper. Common shapes are put in words; anything else is "a custom schedule", still with its next runs.
 */
import { cronScheduleProblem, nextCronRuns } from "@svc/common/cron";

const WEEKDAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];
const NUMBER = /^\d+$/;
const STEP = /^\*\/(\d+)$/;

const pad = (value: string) => value.padStart(2, "0");

/** "every minute", "every 5 minutes": a count of one is said without the number. */
function every(count: number, unit: "second" | "minute" | "hour"): string {
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}

/** An interval in milliseconds in the same words ("every hour", "every 90 minutes"); whole seconds up. */
export function describeInterval(ms: number): string {
  const seconds = Math.max(1, Math.round(ms / 1000));
  if (seconds % 3600 === 0) return every(seconds / 3600, "hour");
  if (seconds % 60 === 0) return every(seconds / 60, "minute");
  return every(seconds, "second");
}

function weekdays(field: string): string | null {
  if (field === "1-5") return "weekday (Monday to Friday)";
  const days = field.split(",");
  if (!days.every((d) => NUMBER.test(d) && Number(d) <= 7)) return null;
  return days.map((d) => WEEKDAYS[Number(d) % 7]).join(", ");
}

/** The schedule in words, or null for shapes it does not know. */
export function describeCron(schedule: string): string | null {
  const fields = schedule.trim().split(/\s+/);
  if (fields.length === 6) {
    const [second, ...rest] = fields;
    const step = STEP.exec(second);
    if (rest.every((f) => f === "*")) {
      if (second === "*") return "every second";
      if (step) return every(Number(step[1]), "second");
    }
    if (second !== "0") return null;
    return describeCron(rest.join(" "));
  }
  if (fields.length !== 5) return null;
  const [minute, hour, day, month, weekday] = fields;
  if (month !== "*") return null;
  if (day === "*" && weekday === "*") {
    if (minute === "*" && hour === "*") return "every minute";
    const step = STEP.exec(minute);
    if (step && hour === "*") return every(Number(step[1]), "minute");
    if (NUMBER.test(minute) && hour === "*") return `every hour at minute ${Number(minute)}`;
    const hourStep = STEP.exec(hour);
    if (NUMBER.test(minute) && hourStep)
      return `${every(Number(hourStep[1]), "hour")} at minute ${Number(minute)}`;
  }
  if (!NUMBER.test(minute) || !NUMBER.test(hour)) return null;
  const at = `at ${pad(hour)}:${pad(minute)} UTC`;
  if (day === "*" && weekday === "*") return `every day ${at}`;
  if (day === "*") {
    const days = weekdays(weekday);
    return days ? `every ${days} ${at}` : null;
  }
  if (weekday === "*" && NUMBER.test(day)) return `on day ${Number(day)} of every month ${at}`;
  return null;
}

export interface CronHint {
  /** Why the schedule is refused (the API's own rule), or null. */
  problem: string | null;
  words: string | null;
  /** The next runs after `now`. */
  next: Date[];
}

export function cronHint(schedule: string, now: Date, count = 3): CronHint {
  if (schedule.trim() === "") return { problem: null, words: null, next: [] };
  const problem = cronScheduleProblem(schedule);
  if (problem) return { problem: `The schedule ${problem}.`, words: null, next: [] };
  return { problem: null, words: describeCron(schedule), next: nextCronRuns(schedule, now, count) };
}
