import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import {
  assertOutboundUrl,
  forbiddenAddressReason,
  guardedLookup,
  OutboundError,
  outboundPolicy,
} from "./guard";

const strict = outboundPolicy();

describe("forbiddenAddressReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.255.254", "loopback"],
    ["10.0.0.1", "private"],
    ["172.16.5.4", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["100.64.0.1", "private (carrier-grade NAT)"],
    ["169.254.169.254", "link-local"],
    ["224.0.0.251", "multicast"],
    ["239.255.255.250", "multicast"],
    ["0.0.0.0", "unspecified"],
    ["0.1.2.3", "unspecified"],
    ["255.255.255.255", "broadcast"],
    ["240.0.0.1", "reserved"],
    ["198.18.0.1", "reserved (benchmarking)"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["fe80::1", "link-local"],
    ["fc00::1", "private (unique local)"],
    ["fd12:3456::1", "private (unique local)"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:10.0.0.1", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["2002:a00:1::", "tunnel (6to4)"],
    ["64:ff9b::a00:1", "translated (NAT64)"],
    ["::127.0.0.1", "loopback"],
    ["::10.0.0.1", "private"],
    ["[::1]", "loopback"],
  ])("refuses %s (%s)", (address, reason) => {
    expect(forbiddenAddressReason(address)).toBe(reason);
  });

  it.each(["93.184.216.34", "8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"])(
    "lets public %s through",
    (address) => {
      expect(forbiddenAddressReason(address)).toBeNull();
    },
  );
});

describe("assertOutboundUrl", () => {
  it.each([
    "http://127.0.0.1/",
    "http://2130706433/",
    "http://0x7f000001/",
    "http://0177.0.0.1/",
    "http://017700000001/",
    "http://127.1/",
    "http://0/",
    "http://10.1/",
    "http://[::1]:8080/",
    "http://[::ffff:127.0.0.1]/",
    "http://[0:0:0:0:0:ffff:a9fe:a9fe]/latest/meta-data",
    "https://169.254.169.254/",
  ])("refuses %s before connecting", (raw) => {
    expect(() => assertOutboundUrl(new URL(raw), strict)).toThrow(OutboundError);
  });

  it.each(["ftp://example.com/", "file:///etc/passwd", "gopher://example.com/", "data:text/html,hi"])(
    "refuses the protocol of %s",
    (raw) => {
      expect(() => assertOutboundUrl(new URL(raw), strict)).toThrow(/only http and https/);
    },
  );

  it("refuses credentials in the URL", () => {
    expect(() => assertOutboundUrl(new URL("http://user:pw@example.com/"), strict)).toThrow(/credentials/);
  });

  it("leaves host names to the lookup and lets allowed hosts through", () => {
    expect(() => assertOutboundUrl(new URL("https://example.com/a"), strict)).not.toThrow();
    expect(() =>
      assertOutboundUrl(new URL("http://127.0.0.1:9/"), outboundPolicy(["127.0.0.1"])),
    ).not.toThrow();
    expect(() => assertOutboundUrl(new URL("http://[::1]/"), outboundPolicy(["[::1]"]))).not.toThrow();
  });
});

describe("guardedLookup", () => {
  const lookupAll = (policy: ReturnType<typeof outboundPolicy>, host: string) =>
    new Promise<LookupAddress[]>((resolve, reject) => {
      guardedLookup(policy)(host, { all: true }, (err, addresses) =>
        err ? reject(err) : resolve(addresses as LookupAddress[]),
      );
    });

  it("refuses a name that resolves to loopback", async () => {
    await expect(lookupAll(strict, "localhost")).rejects.toThrow(
      /refused to fetch localhost: it resolves to a loopback address/,
    );
  });

  it("resolves an allowed name whatever its addresses", async () => {
    const addresses = await lookupAll(outboundPolicy(["localhost"]), "localhost");
    expect(addresses.length).toBeGreaterThan(0);
  });

  it("answers the single-address form too", async () => {
    const address = await new Promise<string>((resolve, reject) => {
      guardedLookup(outboundPolicy(["localhost"]))("localhost", { family: 4 }, (err, addr) =>
        err ? reject(err) : resolve(addr as string),
      );
    });
    expect(address).toBe("127.0.0.1");
  });
});
