import type { WebConfig } from "../config";

/**
 * The header the web server (web/server.ts) sets to the socket's remote address on every request,
 * overwriting anything a client sent.
 */
export const CLIENT_IP_HEADER = "x-svc-client-ip";

/**
 * The client IP: the socket address; with TRUST_PROXY, the X-Forwarded-For address the trusted proxies
 * appended, `TRUST_PROXY_HOPS` from the right. Addresses left of it are the client's own words and never
 * chosen, so rotating them opens no new rate-limit window. A list shorter than the hops gives its first.
 */
export function clientIp(
  request: Request,
  config: Pick<WebConfig, "TRUST_PROXY" | "TRUST_PROXY_HOPS">,
): string {
  if (config.TRUST_PROXY) {
    const forwarded = (request.headers.get("x-forwarded-for") ?? "")
      .split(",")
      .map((address) => address.trim())
      .filter(Boolean);
    const appended = forwarded[Math.max(0, forwarded.length - config.TRUST_PROXY_HOPS)];
    if (appended) return appended;
  }
  return request.headers.get(CLIENT_IP_HEADER) || "unknown";
}
