import { describe, expect, it } from "vitest";
import { CRON_FIELDS_RULE, cronScheduleProblem, nextCronRun, nextCronRuns } from "./cron";

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
