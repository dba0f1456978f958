/**
 * TRUST_PROXY takes the X-Forwarded-For address the trusted proxies appended (TRUST_PROXY_HOPS from the
 * right), never one the client wrote: rotating the client's own entries opens no new rate-limit window.
 */
import { describe, expect, it } from "vitest";
import { POST as LOGIN } from "@/app/api/auth/login/route";
import { LOGIN_LIMIT } from "../../accounts/login";
import { loadWebConfig } from "../config";
import { overrideWebContext } from "../context";
import { call, TEST_SESSION_SECRET, useWebTestContext } from "../testing";
import { clientIp } from "./client-ip";

const { config } = useWebTestContext({ TRUST_PROXY: "true" });

const withForwarded = (forwarded: string) =>
  new Request("http://localhost:3000/", {
    headers: { "x-svc-client-ip": "10.0.0.2", "x-forwarded-for": forwarded },
  });

/** One login attempt (no CSRF token: counted, then refused) with this X-Forwarded-For. */
async function attempt(forwarded: string): Promise<number> {
  const res = await call(LOGIN, {
    method: "POST",
    path: "/api/auth/login",
    json: { email: "a@example.com", password: "whatever1" },
    ip: "10.0.0.2",
    headers: { "x-forwarded-for": forwarded },
  });
  return res.status;
}

describe("clientIp", () => {
  it("is the socket address while TRUST_PROXY is off, whatever X-Forwarded-For says", () => {
    const off = { TRUST_PROXY: false, TRUST_PROXY_HOPS: 1 };
    expect(clientIp(withForwarded("203.0.113.5, 198.51.100.1"), off)).toBe("10.0.0.2");
  });

  it("with one proxy (hops 1) takes the rightmost address", () => {
    const one = { TRUST_PROXY: true, TRUST_PROXY_HOPS: 1 };
    expect(clientIp(withForwarded("203.0.113.5, 198.51.100.1"), one)).toBe("198.51.100.1");
    expect(clientIp(withForwarded("1.1.1.1,2.2.2.2 ,  198.51.100.1"), one)).toBe("198.51.100.1");
    expect(clientIp(withForwarded("198.51.100.1"), one)).toBe("198.51.100.1");
  });

  it("with two proxies (hops 2) takes the second from the right; a shorter list gives its first", () => {
    const two = { TRUST_PROXY: true, TRUST_PROXY_HOPS: 2 };
    expect(clientIp(withForwarded("6.6.6.6, 198.51.100.1, 10.1.1.1"), two)).toBe("198.51.100.1");
    expect(clientIp(withForwarded("198.51.100.1"), two)).toBe("198.51.100.1");
  });

  it("falls back to the socket address when X-Forwarded-For is missing or empty", () => {
    const one = { TRUST_PROXY: true, TRUST_PROXY_HOPS: 1 };
    expect(
      clientIp(new Request("http://localhost/", { headers: { "x-svc-client-ip": "10.0.0.2" } }), one),
    ).toBe("10.0.0.2");
    expect(clientIp(withForwarded(" , "), one)).toBe("10.0.0.2");
  });

  it("reads TRUST_PROXY_HOPS (default 1) and names a bad value", () => {
    expect(config.TRUST_PROXY_HOPS).toBe(1);
    const base = { DATABASE_URL: "postgres://x@localhost/x", SESSION_SECRET: TEST_SESSION_SECRET };
    expect(loadWebConfig({ ...base, TRUST_PROXY_HOPS: "2" }).TRUST_PROXY_HOPS).toBe(2);
    expect(() => loadWebConfig({ ...base, TRUST_PROXY_HOPS: "0" })).toThrow(/TRUST_PROXY_HOPS/);
  });
});

describe("the sign-in limit behind a trusted proxy", () => {
  it("hops 1: rotating the client-written X-Forwarded-For entries does not escape the limit", async () => {
    const statuses: number[] = [];
    for (let i = 0; i <= LOGIN_LIMIT.points; i++)
      statuses.push(await attempt(`203.0.113.${i}, 198.51.100.7`));
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
    // Another client behind the same proxy has its own window.
    expect(await attempt("203.0.113.1, 198.51.100.8")).toBe(403);
  });

  it("hops 2: the address the outer proxy appended is the client's", async () => {
    overrideWebContext({ config: { ...config, TRUST_PROXY_HOPS: 2 } });
    const statuses: number[] = [];
    for (let i = 0; i <= LOGIN_LIMIT.points; i++) {
      statuses.push(await attempt(`203.0.113.${i}, 198.51.100.9, 10.9.9.9`));
    }
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429]);
    // Same inner proxy, another client: its own window.
    expect(await attempt("203.0.113.1, 198.51.100.10, 10.9.9.9")).toBe(403);
  });
});
