import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { openGatewayToken, sealGatewayToken, wrapperAdminPassword } from "./agent-tokens";
import { sha256Hex } from "./crypto";

const KEY = "ab".repeat(32);
const TOKEN = "12".repeat(32);

describe("wrapperAdminPassword", () => {
  it("is 64 hex characters, the same for the same key, agent and token", () => {
    const password = wrapperAdminPassword(KEY, "agt_one", TOKEN);
    expect(password).toMatch(/^[0-9a-f]{64}$/);
    expect(wrapperAdminPassword(KEY, "agt_one", TOKEN)).toBe(password);
  });

  it("differs from the token and from what the token alone gives; changes with the key, the agent and the token", () => {
    const password = wrapperAdminPassword(KEY, "agt_one", TOKEN);
    expect(password).not.toBe(TOKEN);
    expect(password).not.toBe(sha256Hex(TOKEN));
    expect(password).not.toBe(createHmac("sha256", TOKEN).update("agt_one").digest("hex"));
    expect(wrapperAdminPassword("cd".repeat(32), "agt_one", TOKEN)).not.toBe(password);
    expect(wrapperAdminPassword(KEY, "agt_two", TOKEN)).not.toBe(password);
    expect(wrapperAdminPassword(KEY, "agt_one", "34".repeat(32))).not.toBe(password);
  });

  it("keeps agent id and token apart (no two splits of the same text give the same password)", () => {
    expect(wrapperAdminPassword(KEY, "agt_a", "bc")).not.toBe(wrapperAdminPassword(KEY, "agt_ab", "c"));
  });
});

describe("sealGatewayToken", () => {
  it("round-trips with the same key only", () => {
    const sealed = sealGatewayToken(KEY, TOKEN);
    expect(sealed).not.toContain(TOKEN);
    expect(openGatewayToken(KEY, sealed)).toBe(TOKEN);
    expect(() => openGatewayToken("cd".repeat(32), sealed)).toThrow();
  });
});
