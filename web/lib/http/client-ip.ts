/**
 * The header the web server (web/server.ts) sets to the socket's remote address on every request,
 * overwriting anything a client sent.
 */
export const CLIENT_IP_HEADER = "x-svc-client-ip";

/** The client IP: the socket address, or the first X-Forwarded-For address when TRUST_PROXY is on. */
export function clientIp(request: Request, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for")?.split(",")[0]?.trim();
    if (forwarded) return forwarded;
  }
  return request.headers.get(CLIENT_IP_HEADER) || "unknown";
}
