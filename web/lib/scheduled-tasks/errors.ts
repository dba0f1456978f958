import { HttpError } from "@svc/common";

/** The scheduled-tasks area's failures, one constructor per code (an unknown agent is the agents area's `agentNotFound`). */
export const taskNotFound = () => new HttpError(404, "task_not_found", "scheduled task not found");

/** 403: the user has as many tasks as their plan allows. */
export const taskLimitReached = (plan: string, limit: number) =>
  new HttpError(
    403,
    "task_limit_reached",
    `the "${plan}" plan allows ${limit} scheduled tasks; delete one before adding another`,
  );

/** 400: the schedule runs more often than the plan's minimum interval allows. */
export const scheduleTooFrequent = (plan: string, shortestSeconds: number, minSeconds: number) =>
  new HttpError(
    400,
    "schedule_too_frequent",
    `Schedule runs ${spell(shortestSeconds)} apart at its closest; the "${plan}" plan allows one run every ${spell(minSeconds)} at most`,
    { field: "cronSchedule" },
  );

/** Seconds in words: "1 second", "90 seconds", "5 minutes", "2 hours". */
function spell(seconds: number): string {
  const unit = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
  if (seconds % 3600 === 0) return unit(seconds / 3600, "hour");
  if (seconds % 60 === 0) return unit(seconds / 60, "minute");
  return unit(seconds, "second");
}
