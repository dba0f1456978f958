import type { IncomingHttpHeaders, OutgoingHttpHeaders } from "node:http";
import type { Duplex } from "node:stream";

/**
 * Headers that belong to one connection and are never forwarded by a proxy (RFC 9110 7.6.1), plus
 * `Expect`: Node's server already answered `Expect: 100-continue`, forwarding it would ask the upstream
 * again. Lower-case, as Node gives header names.
 */
export const HOP_BY_HOP_HEADERS: ReadonlySet<string> = new Set([
  "connection",
  "keep-alive",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "expect",
]);

/** The header names a `Connection` header lists: hop-by-hop too (RFC 9110 7.6.1); null when there is none. */
export function connectionTokens(value: string | string[] | undefined): Set<string> | null {
  if (!value) return null;
  const tokens = new Set<string>();
  for (const token of (Array.isArray(value) ? value.join(",") : value).split(",")) {
    const name = token.trim().toLowerCase();
    if (name) tokens.add(name);
  }
  return tokens;
}

/** Whether a proxy forwards header `name` (lower-case), given the tokens of the message's `Connection`. */
export function isEndToEnd(name: string, named: Set<string> | null): boolean {
  return !HOP_BY_HOP_HEADERS.has(name) && !named?.has(name);
}

/** The end-to-end headers of a message: hop-by-hop ones and those its `Connection` names dropped. */
export function endToEndHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const named = connectionTokens(headers.connection);
  const out: OutgoingHttpHeaders = {};
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined || !isEndToEnd(name, named)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Finishes a proxied upgrade once the upstream connection is open: sends the request head (the request
 * line and header lines, each ending in CRLF) and the bytes the server already read, then relays both ways.
 */
export function relayUpgrade(upstream: Duplex, client: Duplex, requestHead: string, head: Buffer): void {
  upstream.write(`${requestHead}\r\n`);
  if (head.length > 0) upstream.write(head);
  upstream.pipe(client);
  client.pipe(upstream);
}
