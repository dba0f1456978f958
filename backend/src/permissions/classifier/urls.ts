/**
 * URLs the agent may read (a network read is safe): public http(s) addresses only. The platform's own
 * services and the cloud's metadata sit at internal addresses (loopback, private and link-local ranges,
 * `localhost`, a single-label name such as a compose service, `.internal`): reaching them is dangerous,
 * whether by OpenClaw's `web_fetch` or by `curl`.
 */
import { isComputed } from "./computed";
import { type Classification, dangerous, shown } from "./types";

const INTERNAL_SUFFIXES = [".localhost", ".local", ".internal", ".lan", ".home.arpa", ".intranet"];

/**
 * Why a URL is not a public network read, or null when it is one: not http(s), or a host that is
 * loopback, private, link-local, shared or reserved (IPv4 in any notation, which the URL parser writes
 * dotted), a non-global IPv6 address, `localhost`, a name without a dot, or an internal suffix.
 */
export function internalUrlReason(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `not a URL: ${shown(text)}`;
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") return `not http(s): ${shown(url.protocol)}`;
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  const internal = `internal address: ${shown(host)}`;
  if (host.startsWith("[")) return isGlobalIpv6(host.slice(1, -1)) ? null : internal;
  const ipv4 = IPV4.exec(host);
  if (ipv4) return isPublicIpv4(ipv4.slice(1).map(Number)) ? null : internal;
  if (host === "localhost" || !host.includes(".")) return internal;
  if (INTERNAL_SUFFIXES.some((suffix) => host.endsWith(suffix))) return internal;
  return null;
}

const IPV4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/;

function isPublicIpv4([a, b]: number[]): boolean {
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  if (a === 100 && b >= 64 && b <= 127) return false; // shared address space (CGNAT)
  if (a === 169 && b === 254) return false; // link-local, the cloud metadata address
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && (b === 168 || b === 0)) return false;
  if (a === 198 && (b === 18 || b === 19)) return false; // benchmarking
  return true;
}

/** Only global unicast (2000::/3) is public; loopback, ULA, link-local and IPv4-mapped forms are not. */
function isGlobalIpv6(address: string): boolean {
  const first = Number.parseInt(address.split(":")[0] || "0", 16);
  return first >= 0x2000 && first <= 0x3fff;
}

const SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * A URL operand of a command-line client (`curl URL`, `http :3000/x`): dangerous when it is not a public
 * http(s) address; a URL without a scheme is http (httpie's `:PORT/path` is localhost).
 */
export function commandUrlVerdict(word: string, how: string): Classification | null {
  if (isComputed(word)) return dangerous("computed-argument", `computed argument: ${how} ${shown(word)}`);
  const text = SCHEME.test(word) ? word : `http://${word.startsWith(":") ? `localhost${word}` : word}`;
  const reason = internalUrlReason(text);
  return reason === null ? null : dangerous("internal-network", `network read: ${how} ${reason}`);
}
