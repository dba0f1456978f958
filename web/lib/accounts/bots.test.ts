import { describe, expect, it } from "vitest";
import { loadWebConfig } from "../infra/config";
import { csrfCookie } from "../infra/csrf/service";
import { clientIp } from "../infra/http/client-ip";
import { clearedSessionCookie, sessionCookie } from "../sessions/service";
import { isAutomatedClient } from "./bots";

const base = { DATABASE_URL: "postgres://u@h/db", SESSION_SECRET: "s".repeat(32) };

describe("bot detection", () => {
  it.each([
    [undefined, true],
    ["", true],
    ["curl/8.5.0", true],
    ["Wget/1.21", true],
    ["python-requests/2.31.0", true],
    ["Go-http-client/2.0", true],
    [
      "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0 Safari/537.36",
      true,
    ],
    ["node", true],
    [
      "Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15",
      false,
    ],
    ["Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:128.0) Gecko/20100101 Firefox/128.0", false],
  ])("%s -> %s", (ua, bot) => {
    expect(isAutomatedClient(ua)).toBe(bot);
  });
});

describe("cookies follow the public URL", () => {
  it("adds Secure when PUBLIC_URL is https", () => {
    const https = loadWebConfig({ ...base, PUBLIC_URL: "https://agents.example.com" });
    expect(sessionCookie(https, "tok")).toBe(
      "svc-session=tok; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure",
    );
    expect(clearedSessionCookie(https)).toContain("Max-Age=0");
    expect(csrfCookie(https, "c")).toBe("svc-csrf=c; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax; Secure");
    const http = loadWebConfig({ ...base, PUBLIC_URL: "http://localhost:3000" });
    expect(sessionCookie(http, "tok")).not.toContain("Secure");
  });
});

describe("client IP", () => {
  it("is the socket address unless TRUST_PROXY is set", () => {
    const request = new Request("http://localhost/", {
      headers: { "x-svc-client-ip": "10.0.0.9", "x-forwarded-for": "203.0.113.5, 10.0.0.1" },
    });
    expect(clientIp(request, { TRUST_PROXY: false, TRUST_PROXY_HOPS: 1 })).toBe("10.0.0.9");
    expect(clientIp(request, { TRUST_PROXY: true, TRUST_PROXY_HOPS: 1 })).toBe("10.0.0.1");
  });
});

describe("web config", () => {
  it("names bad variables", () => {
    expect(() => loadWebConfig({ ...base, SESSION_SECRET: "short" })).toThrow(/SESSION_SECRET/);
    expect(() => loadWebConfig({ ...base, BOT_PROTECTION: "maybe" })).toThrow(/BOT_PROTECTION/);
    expect(() => loadWebConfig({ ...base, PASSKEY_CHALLENGE_TTL_MS: "5m" })).toThrow(
      /PASSKEY_CHALLENGE_TTL_MS/,
    );
    expect(loadWebConfig({ ...base, ADMIN_EMAILS: "A@X.com, b@y.com" }).ADMIN_EMAILS).toEqual([
      "a@x.com",
      "b@y.com",
    ]);
  });
});

describe("BOT_PROTECTION", () => {
  it("off lets automation clients sign up; on refuses them", async () => {
    const { assertHumanClient } = await import("./service");
    const off = { config: loadWebConfig({ ...base, BOT_PROTECTION: "off" }) } as Parameters<
      typeof assertHumanClient
    >[0];
    const on = { config: loadWebConfig(base) } as Parameters<typeof assertHumanClient>[0];
    expect(() => assertHumanClient(off, "curl/8.5.0")).not.toThrow();
    expect(() => assertHumanClient(on, "curl/8.5.0")).toThrow("automated sign-ups are not allowed");
  });
});
