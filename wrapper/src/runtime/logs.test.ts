import { ManualClock } from "@svc/common";
import { describe, expect, it } from "vitest";
import { cutLine, type LogEntry, LogRing, MAX_LOG_LINE_BYTES } from "./logs";

describe("LogRing", () => {
  it("splits output into lines, keeping partial lines until their newline", () => {
    const ring = new LogRing(500, new ManualClock("2026-02-03T04:05:06.000Z"));
    ring.write("stdout", Buffer.from("first\nsec"));
    expect(ring.tail(10).map((e) => e.line)).toEqual(["first"]);
    ring.write("stdout", Buffer.from("ond\r\nthird"));
    ring.write("stderr", "oops\n");
    expect(ring.tail(10)).toEqual([
      { ts: "2026-02-03T04:05:06.000Z", stream: "stdout", line: "first" },
      { ts: "2026-02-03T04:05:06.000Z", stream: "stdout", line: "second" },
      { ts: "2026-02-03T04:05:06.000Z", stream: "stderr", line: "oops" },
    ]);
    ring.flush();
    expect(ring.tail(1)[0]).toMatchObject({ stream: "stdout", line: "third" });
    ring.flush();
    expect(ring.size).toBe(4);
  });

  it("decodes a UTF-8 character split across chunks", () => {
    const ring = new LogRing();
    const bytes = Buffer.from("héllo\n");
    ring.write("stdout", bytes.subarray(0, 2));
    ring.write("stdout", bytes.subarray(2));
    expect(ring.tail(1)[0].line).toBe("héllo");
  });

  it("keeps only the last entries up to its capacity", () => {
    const ring = new LogRing(500);
    for (let i = 0; i < 520; i++) ring.write("stdout", `line ${i}\n`);
    expect(ring.size).toBe(500);
    expect(ring.tail(1000)[0].line).toBe("line 20");
    expect(ring.tail(2).map((e) => e.line)).toEqual(["line 518", "line 519"]);
    expect(ring.tail(0)).toEqual([]);
  });

  it("cuts lines over 8 KB at 8 KB, also when they arrive in pieces", () => {
    const ring = new LogRing();
    ring.write("stdout", `${"a".repeat(MAX_LOG_LINE_BYTES + 100)}\n`);
    for (let i = 0; i < 5; i++) ring.write("stderr", "b".repeat(4000));
    ring.write("stderr", "tail\nnext\n");
    const [a, b, next] = ring.tail(3);
    expect(a.line).toBe("a".repeat(MAX_LOG_LINE_BYTES));
    expect(b.line).toBe("b".repeat(MAX_LOG_LINE_BYTES));
    expect(next.line).toBe("next");
  });

  it("cuts on a character boundary", () => {
    const line = `${"a".repeat(MAX_LOG_LINE_BYTES - 1)}é`;
    expect(cutLine(line)).toBe("a".repeat(MAX_LOG_LINE_BYTES - 1));
    expect(cutLine("short")).toBe("short");
  });

  it("hands each new entry to subscribers until they unsubscribe", () => {
    const ring = new LogRing();
    const seen: LogEntry[] = [];
    const unsubscribe = ring.subscribe((entry) => seen.push(entry));
    ring.subscribe(() => {
      throw new Error("a broken subscriber");
    });
    ring.write("stdout", "one\n");
    unsubscribe();
    ring.write("stdout", "two\n");
    expect(seen.map((e) => e.line)).toEqual(["one"]);
    expect(ring.subscriberCount).toBe(1);
  });
});
