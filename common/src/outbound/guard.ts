/**
 * Outbound URL guard (SSRF): the platform fetches user-supplied URLs only when they are http(s) and every
 * address their host resolves to is public unicast. Hosts named in the allow list (OUTBOUND_ALLOW_HOSTS)
 * skip the address check, for tests and private deployments.
 */
import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from "node:dns";
import { isIP } from "node:net";
import ipaddr from "ipaddr.js";

export interface OutboundPolicy {
  /** Lower-case host names or IP literals (IPv6 without brackets) allowed whatever they resolve to. */
  allowHosts: ReadonlySet<string>;
}

export function outboundPolicy(allowHosts: Iterable<string> = []): OutboundPolicy {
  return { allowHosts: new Set([...allowHosts].map((h) => normalizeHost(h))) };
}

/** Why an outbound call failed; `refused` (the URL guard said no) is the caller's fault, the others the upstream's. */
export type OutboundFailure =
  | "refused"
  | "timeout"
  | "unreachable"
  | "redirect"
  | "too_many_redirects"
  | "too_large"
  | "aborted"
  | "http"
  /** The agent at the address did not prove it is the one meant (`agent-identity.ts`): nothing was sent. */
  | "identity";

export interface OutboundErrorDetails {
  /** The upstream the failure names ("the agent", "backend", …). */
  upstream?: string;
  /** The HTTP status, when the upstream answered one. */
  status?: number;
  /** The message without the upstream's name, for callers that word it themselves. */
  detail?: string;
  /** The socket error code of an `unreachable` failure (`ECONNREFUSED`, …). */
  socketCode?: string;
  timeoutMs?: number;
  maxBytes?: number;
  /** The request went out whole on a connection (the upstream may have acted on it). */
  requestSent?: boolean;
}

/** A failed outbound call, named by its reason and upstream. */
export class OutboundError extends Error {
  readonly reason: OutboundFailure;
  readonly upstream?: string;
  readonly status?: number;
  readonly detail: string;
  readonly socketCode?: string;
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /**
   * Whether the request went out whole on a connection before the failure (set by the outbound client): false
   * for a refused connection, a failed name lookup or a deadline hit while connecting, true once the upstream
   * could have acted on it (a timeout waiting for the answer, a connection reset after sending, a broken body).
   */
  requestSent: boolean;

  constructor(reason: OutboundFailure, message: string, details: OutboundErrorDetails = {}) {
    super(message);
    this.name = "OutboundError";
    this.reason = reason;
    this.upstream = details.upstream;
    this.status = details.status;
    this.detail = details.detail ?? message;
    this.socketCode = details.socketCode;
    this.timeoutMs = details.timeoutMs;
    this.maxBytes = details.maxBytes;
    this.requestSent = details.requestSent ?? false;
  }
}

const RANGE_NAMES: Record<string, string> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "private (carrier-grade NAT)",
  private: "private",
  uniqueLocal: "private (unique local)",
  reserved: "reserved",
  benchmarking: "reserved (benchmarking)",
  "6to4": "tunnel (6to4)",
  teredo: "tunnel (Teredo)",
  rfc6052: "translated (NAT64)",
  rfc6145: "translated (SIIT)",
};

/** 198.18.0.0/15 is reported as unicast by ipaddr.js but is never a public destination. */
const BENCHMARKING_V4 = ipaddr.parseCIDR("198.18.0.0/15");

/**
 * Why an IP address must not be reached (`"loopback"`, `"private"`, ...), or null when it is public unicast.
 * IPv4-mapped IPv6 addresses are judged by their IPv4 address.
 */
export function forbiddenAddressReason(address: string): string | null {
  const literal = address.replace(/^\[|\]$/g, "");
  if (!ipaddr.isValid(literal))
    return isIP(literal) ? "reserved (IPv4-compatible IPv6)" : "not an IP address";
  let parsed = ipaddr.parse(literal);
  if (parsed.kind() === "ipv6") {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) parsed = v6.toIPv4Address();
  }
  if (parsed.kind() === "ipv4" && (parsed as ipaddr.IPv4).match(BENCHMARKING_V4))
    return RANGE_NAMES.benchmarking;
  const range = parsed.range();
  return range === "unicast" ? null : (RANGE_NAMES[range] ?? range);
}

export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

export function isAllowedHost(policy: OutboundPolicy, host: string): boolean {
  return policy.allowHosts.has(normalizeHost(host));
}

/**
 * Checks what can be checked before connecting: the protocol, and the host when it is an IP literal (the
 * URL parser has already turned decimal, octal and hex IPv4 forms like `2130706433` into dotted quads).
 * Host names are checked at connection time by `guardedLookup`.
 */
export function assertOutboundUrl(url: URL, policy: OutboundPolicy): void {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new OutboundError(
      "refused",
      `only http and https URLs can be fetched (got ${url.protocol.replace(/:$/, "")})`,
    );
  }
  if (url.username || url.password)
    throw new OutboundError("refused", "URLs with credentials are not fetched");
  const host = normalizeHost(url.hostname);
  if (isAllowedHost(policy, host) || !isIP(host)) return;
  const reason = forbiddenAddressReason(host);
  if (reason) throw new OutboundError("refused", `refused to fetch ${host}: ${reason} address`);
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for `http.request` that resolves the name and refuses it when any of its addresses is not
 * public; the address connected to is one of those checked, so there is no DNS-rebinding gap.
 */
export function guardedLookup(policy: OutboundPolicy) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, "");
      const list = addresses as LookupAddress[];
      if (!isAllowedHost(policy, hostname)) {
        for (const { address } of list) {
          const reason = forbiddenAddressReason(address);
          if (reason) {
            return callback(
              new OutboundError(
                "refused",
                `refused to fetch ${hostname}: it resolves to a ${reason} address (${address})`,
              ),
              "",
            );
          }
        }
      }
      if (options.all) return callback(null, list);
      const first = list[0];
      if (!first)
        return callback(Object.assign(new Error(`no address for ${hostname}`), { code: "ENOTFOUND" }), "");
      callback(null, first.address, first.family);
    });
  };
}
