import { createServer, isIPv4, isIPv6 } from "node:net";
import ipaddr from "ipaddr.js";

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Whether something already listens on `port` (tries to bind it on `host`). */
export function isPortTaken(port: number, host = "0.0.0.0"): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once("error", () => resolve(true));
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/**
 * The part of a client's address that a per-address rate limit counts. An IPv4 address counts whole; an
 * IPv6 address by its /64 (`2001:db8:1:2::/64`), because one subscriber is routinely given a whole /64 and
 * could otherwise open a fresh window with every one of its 2^64 addresses. An IPv4-mapped IPv6 address
 * (`::ffff:203.0.113.5`, how a dual-stack socket reports an IPv4 client) is its IPv4 address. Anything
 * else (`unknown`) is returned as given.
 */
export function rateLimitAddress(address: string): string {
  const literal = address
    .trim()
    .replace(/^\[|\]$/g, "")
    .replace(/%.*$/, "");
  if (isIPv4(literal)) return literal;
  if (!isIPv6(literal)) return address;
  const v6 = ipaddr.IPv6.parse(literal);
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().toString();
  return `${v6.parts
    .slice(0, 4)
    .map((part) => part.toString(16))
    .join(":")}::/64`;
}
