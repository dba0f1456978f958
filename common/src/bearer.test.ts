import { describe, expect, it } from "vitest";
import { bearerCredential } from "./bearer";

describe("bearerCredential", () => {
  it("reads the credential after `Bearer ` (any case), as sent", () => {
    expect(bearerCredential("Bearer abc")).toBe("abc");
    expect(bearerCredential("bearer abc")).toBe("abc");
    expect(bearerCredential("BEARER a b ")).toBe("a b ");
    expect(bearerCredential("Bearer  abc")).toBe(" abc");
  });

  it("is null without a header, without a credential, or for another scheme", () => {
    for (const header of [undefined, null, "", "Bearer", "Bearer ", "Basic abc", "abc", "Bearerabc"]) {
      expect(bearerCredential(header), String(header)).toBeNull();
    }
  });
});
