import { describe, expect, it } from "vitest";
import { cronHint, describeCron, describeInterval } from "./cron-hint";

describe("describeCron", () => {
  it("puts common shapes in words", () => {
    expect(describeCron("* * * * *")).toBe("every minute");
    expect(describeCron("*/5 * * * *")).toBe("every 5 minutes");
    expect(describeCron("15 * * * *")).toBe("every hour at minute 15");
    expect(describeCron("0 */6 * * *")).toBe("every 6 hours at minute 0");
    expect(describeCron("30 9 * * *")).toBe("every day at 09:30 UTC");
    expect(describeCron("0 8 * * 1-5")).toBe("every weekday (Monday to Friday) at 08:00 UTC");
    expect(describeCron("0 8 * * 1,3")).toBe("every Monday, Wednesday at 08:00 UTC");
    expect(describeCron("0 0 1 * *")).toBe("on day 1 of every month at 00:00 UTC");
    expect(describeCron("*/10 * * * * *")).toBe("every 10 seconds");
    expect(describeCron("0 30 9 * * *")).toBe("every day at 09:30 UTC");
  });

  it("says a step of one without the number (issue 26 item 5: never 'every 1 minutes')", () => {
    expect(describeCron("*/1 * * * *")).toBe("every minute");
    expect(describeCron("0 */1 * * *")).toBe("every hour at minute 0");
    expect(describeCron("*/1 * * * * *")).toBe("every second");
    expect(describeCron("0 */1 * * * *")).toBe("every minute");
  });

  it("leaves other shapes to the next runs", () => {
    expect(describeCron("0 9 1 1 *")).toBeNull();
    expect(describeCron("5-10 9 * * *")).toBeNull();
    expect(describeCron("* *")).toBeNull();
  });
});

describe("cronHint", () => {
  it("the next runs in UTC, or the API's reason for refusing the schedule", () => {
    const now = new Date("2026-11-21T10:00:00.000Z");
    expect(cronHint("0 * * * *", now, 2)).toEqual({
      problem: null,
      words: "every hour at minute 0",
      next: [new Date("2026-11-21T11:00:00.000Z"), new Date("2026-11-21T12:00:00.000Z")],
    });
    expect(cronHint("* * *", now).problem).toMatch(/^The schedule must have 5 or 6 fields/);
    expect(cronHint("61 * * * *", now).problem).toMatch(/^The schedule is not a valid cron schedule/);
    expect(cronHint("  ", now)).toEqual({ problem: null, words: null, next: [] });
  });
});

describe("describeInterval", () => {
  it("an interval in the schedule's words", () => {
    expect(describeInterval(60_000)).toBe("every minute");
    expect(describeInterval(5 * 60_000)).toBe("every 5 minutes");
    expect(describeInterval(3_600_000)).toBe("every hour");
    expect(describeInterval(2 * 3_600_000)).toBe("every 2 hours");
    expect(describeInterval(90 * 60_000)).toBe("every 90 minutes");
    expect(describeInterval(1_000)).toBe("every second");
    expect(describeInterval(45_000)).toBe("every 45 seconds");
  });
});
