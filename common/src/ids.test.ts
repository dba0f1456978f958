import { describe, expect, it } from "vitest";
import { newId, randomId, timestampedId } from "./ids";

describe("ids", () => {
  it("draws lower-case alphanumerics of the asked length", () => {
    const ids = new Set(Array.from({ length: 200 }, () => randomId(16)));
    expect(ids.size).toBe(200);
    for (const id of ids) expect(id).toMatch(/^[0-9a-z]{16}$/);
  });

  it("prefixes ids", () => {
    expect(newId("usr")).toMatch(/^usr_[0-9a-z]{20}$/);
  });

  it("builds spec ids with the creation time", () => {
    const at = new Date("2026-03-01T10:00:00.000Z");
    expect(timestampedId("perm", at)).toMatch(new RegExp(`^perm_${at.getTime()}_[0-9a-z]{10}$`));
    expect(timestampedId("job", at)).toMatch(/^job_\d{13}_[0-9a-z]{10}$/);
  });
});
