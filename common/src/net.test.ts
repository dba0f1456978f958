import { describe, expect, it } from "vitest";
import { rateLimitAddress } from "./net";

describe("rateLimitAddress", () => {
  it("counts an IPv6 address by its /64, however it is written", () => {
    expect(rateLimitAddress("2001:db8:1:2:3:4:5:6")).toBe("2001:db8:1:2::/64");
    expect(rateLimitAddress("2001:db8:1:2:ffff:ffff:ffff:ffff")).toBe("2001:db8:1:2::/64");
    expect(rateLimitAddress("2001:0DB8:0001:0002::1")).toBe("2001:db8:1:2::/64");
    expect(rateLimitAddress("[2001:db8:1:2::9]")).toBe("2001:db8:1:2::/64");
    expect(rateLimitAddress("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(rateLimitAddress("::1")).toBe("0:0:0:0::/64");
    // Another /64 is another window.
    expect(rateLimitAddress("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
  });

  it("counts an IPv4 address whole, also when a dual-stack socket reports it IPv4-mapped", () => {
    expect(rateLimitAddress("203.0.113.5")).toBe("203.0.113.5");
    expect(rateLimitAddress("::ffff:203.0.113.5")).toBe("203.0.113.5");
    expect(rateLimitAddress("::ffff:cb00:7105")).toBe("203.0.113.5");
  });

  it("leaves what is not an address as it is", () => {
    expect(rateLimitAddress("unknown")).toBe("unknown");
    expect(rateLimitAddress("")).toBe("");
  });
});
