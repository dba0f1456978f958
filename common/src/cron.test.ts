import { describe, expect, it } from "vitest";
import {
  CRON_FIELDS_RULE,
  cronScheduleProblem,
  nextCronRun,
  nextCronRuns,
  shortestCronIntervalSeconds,
} from "./cron";

describe("cronScheduleProblem", () => {
  it("counts 5 or 6 fields first: what cron-parser would also take is refused", () => {
    for (const schedule of ["", "   ", "* * * *", "@daily", "@hourly", "* * * * * * *", "H H * *"]) {
      expect(cronScheduleProblem(schedule), schedule).toBe(CRON_FIELDS_RULE);
    }
  });

  it("then parses: the parser's reason for a bad field, null for a good schedule", () => {
    expect(cronScheduleProblem("61 * * * *")).toBe(
      "is not a valid cron schedule: Constraint error, got value 61 expected range 0-59",
    );
    expect(cronScheduleProblem("0 0 30 2 *")).toMatch(/^is not a valid cron schedule: /);
    expect(cronScheduleProblem("  30 9 * * 1-5 ")).toBeNull();
    expect(cronScheduleProblem("*/15 * * * * *")).toBeNull();
  });
});

describe("nextCronRun", () => {
  it("is strictly after the given time, in UTC", () => {
    expect(nextCronRun("0 * * * *", new Date("2026-01-01T10:00:00.000Z"))?.toISOString()).toBe(
      "2026-01-01T11:00:00.000Z",
    );
    expect(nextCronRun("0 * * * *", new Date("2026-01-01T09:59:59.999Z"))?.toISOString()).toBe(
      "2026-01-01T10:00:00.000Z",
    );
    expect(nextCronRun("30 9 * * *", new Date("2026-01-01T23:00:00.000Z"))?.toISOString()).toBe(
      "2026-01-02T09:30:00.000Z",
    );
    expect(nextCronRun("not a schedule", new Date())).toBeNull();
  });

  it("nextCronRuns gives consecutive occurrences", () => {
    expect(
      nextCronRuns("*/20 * * * * *", new Date("2026-01-01T00:00:05.000Z"), 3).map((d) => d.toISOString()),
    ).toEqual(["2026-01-01T00:00:20.000Z", "2026-01-01T00:00:40.000Z", "2026-01-01T00:01:00.000Z"]);
  });
});

describe("shortestCronIntervalSeconds", () => {
  it("is the closest two runs come, in seconds", () => {
    const cases: Array<[string, number]> = [
      ["* * * * * *", 1],
      ["*/15 * * * * *", 15],
      ["0 * * * * *", 60],
      ["* * * * *", 60],
      ["*/5 * * * *", 300],
      ["0,1 * * * *", 60],
      ["0,30 9 * * *", 30 * 60],
      ["0 * * * *", 3600],
      ["30 9 * * 1-5", 24 * 3600],
      // 23:00 and then 00:00 the next day.
      ["0 0,23 * * *", 3600],
      ["0 0 9-17 * * 1-5", 3600],
      ["0,59 * * * * *", 1],
    ];
    for (const [schedule, seconds] of cases)
      expect(shortestCronIntervalSeconds(schedule), schedule).toBe(seconds);
  });

  it("is null for a schedule that does not parse", () => {
    expect(shortestCronIntervalSeconds("61 * * * *")).toBeNull();
  });
});
