import { isApiKeyShaped } from "@svc/common/credentials";
import { describe, expect, it } from "vitest";
import { API_KEY_PREFIX_LENGTH, generateApiKey } from "./service";

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

describe("generateApiKey", () => {
  it("is svc_ followed by 40 base62 characters, with a 10-character svc_ prefix", () => {
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key).toMatch(/^svc_[0-9A-Za-z]{40}$/);
      expect(isApiKeyShaped(key)).toBe(true);
      expect(key.slice(0, API_KEY_PREFIX_LENGTH)).toMatch(/^svc_[0-9A-Za-z]{6}$/);
    }
  });

  it("draws every base62 character uniformly (no modulo bias)", () => {
    const counts = new Map<string, number>();
    const keys = 5000;
    for (let i = 0; i < keys; i++) {
      for (const ch of generateApiKey().slice(4)) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    expect([...counts.keys()].sort().join("")).toBe([...BASE62].sort().join(""));
    // 200,000 draws: 3,226 expected per character, standard deviation about 56. A modulo-62 draw of raw
    // bytes would give the first 8 characters about 3,900 each, far outside these bounds.
    const expected = (keys * 40) / 62;
    for (const [ch, n] of counts) {
      expect(Math.abs(n - expected), `character ${ch} drawn ${n} times`).toBeLessThan(350);
    }
  });
});

describe("isApiKeyShaped", () => {
  it("refuses anything but svc_ and 40 base62 characters", () => {
    expect(isApiKeyShaped(`svc_${"a".repeat(40)}`)).toBe(true);
    expect(isApiKeyShaped(`svc_${"a".repeat(39)}`)).toBe(false);
    expect(isApiKeyShaped(`svc_${"a".repeat(41)}`)).toBe(false);
    expect(isApiKeyShaped(`sk_${"a".repeat(41)}`)).toBe(false);
    expect(isApiKeyShaped(`svc_${"a".repeat(39)}-`)).toBe(false);
    expect(isApiKeyShaped(` svc_${"a".repeat(40)}`)).toBe(false);
    expect(isApiKeyShaped("")).toBe(false);
  });
});
