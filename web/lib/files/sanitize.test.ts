import { describe, expect, it } from "vitest";
import { FILENAME_MAX_LENGTH, sanitizeFilename, sanitizeMimeType } from "./sanitize";

const now = new Date("2026-11-21T10:00:00.000Z");

describe("sanitizeFilename (spec: leading dots removed, a-zA-Z0-9._- kept, 128 chars, empty → upload_<timestamp>)", () => {
  it.each([
    ["report.pdf", "report.pdf"],
    ["My File (1).txt", "My_File__1_.txt"],
    [".env", "env"],
    ["...hidden.tar.gz", "hidden.tar.gz"],
    ["../secret", "_secret"],
    ["../../etc/passwd", "_.._etc_passwd"],
    ["..\\..\\windows\\system.ini", "_.._windows_system.ini"],
    ["/etc/passwd", "_etc_passwd"],
    ["C:\\Users\\me\\a.txt", "C__Users_me_a.txt"],
    ["naïve café.md", "na_ve_caf_.md"],
    ["日本語.txt", "___.txt"],
    ["emoji-😀.png", "emoji-_.png"],
    ["e\u0301.txt", "e_.txt"],
    ["tab\tnew\nline", "tab_new_line"],
    ['quote"semi;colon', "quote_semi_colon"],
    ["a.b-c_d.E9", "a.b-c_d.E9"],
    ["x/.hidden", "x_.hidden"],
  ])("%j → %j", (input, expected) => {
    expect(sanitizeFilename(input, now)).toBe(expected);
  });

  it("truncates to 128 characters after replacing", () => {
    expect(sanitizeFilename("a".repeat(200), now)).toBe("a".repeat(128));
    expect(sanitizeFilename(`${"é".repeat(150)}.txt`, now)).toBe("_".repeat(128));
    expect(sanitizeFilename(`..${"b".repeat(129)}`, now)).toHaveLength(FILENAME_MAX_LENGTH);
  });

  it.each(["", ".", "..", "....."])("%j (empty after removing dots) → upload_<timestamp>", (input) => {
    expect(sanitizeFilename(input, now)).toBe(`upload_${now.getTime()}`);
  });
});

describe("sanitizeMimeType", () => {
  it.each([
    ["text/plain", "text/plain"],
    ["Image/PNG", "image/png"],
    ["text/html; charset=utf-8", "text/html"],
    [
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
      "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    ],
    ["", "application/octet-stream"],
    [undefined, "application/octet-stream"],
    ["nonsense", "application/octet-stream"],
    ["text/plain\r\nx-evil: 1", "application/octet-stream"],
  ])("%j → %j", (input, expected) => {
    expect(sanitizeMimeType(input)).toBe(expected);
  });
});
