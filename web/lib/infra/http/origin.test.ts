/**
 * Cross-site state changes are refused in one place (route(), through ./origin.ts): a browser's foreign `Origin` or `Sec-Fetch-Site` gets 403 and nothing is done; same-origin
 * and header-less requests (programs, curl) pass; the routes other servers post to opt out.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { agents, passkeyChallenges, sessions } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST as SIGNOUT } from "@/app/api/auth/signout/route";
import { POST as REGISTER_OPTIONS } from "@/app/api/passkey/register/options/route";
import { POST as PROVISION } from "@/app/api/provision/route";
import { POST as RESTART } from "@/app/api/runtime/restart/route";
import { POST as RISC } from "@/app/api/security/risc/route";
import { POST as HOSTING_WEBHOOK } from "@/app/api/webhooks/hosting/route";
import { startTestBackend } from "../../runtime/testing/backend";
import { call, makeRequest, signedInUser, type TestRequest, useWebTestContext, webContext } from "../testing";
import { assertSameOrigin } from "./origin";

const INTERNAL_API_KEY = "origin-internal-key-0123456789abcdef";
const HMAC_SECRET = "origin-hmac-secret-0123456789abcdef";
const backend = await startTestBackend({ INTERNAL_API_KEY, HMAC_SECRET });
afterAll(() => backend.close());
// PUBLIC_URL is http://localhost:3000 (the test default).
useWebTestContext({
  BACKEND_URL: backend.url,
  INTERNAL_API_KEY,
  HMAC_SECRET,
  HOSTING_WEBHOOK_SECRET: "hook",
});

const PUBLIC = "http://localhost:3000";
const EVIL = { origin: "https://evil.example" };
const CROSS_SITE_BODY = { error: "cross-site request refused", code: "cross_site_request" };

const db = () => webContext().db;

async function sessionCount(userId: string) {
  return (await db().select().from(sessions).where(eq(sessions.userId, userId))).length;
}
async function challengeCount(userId: string) {
  return (await db().select().from(passkeyChallenges).where(eq(passkeyChallenges.userId, userId))).length;
}
async function agentCount(userId: string) {
  return (await db().select().from(agents).where(eq(agents.userId, userId))).length;
}

describe("assertSameOrigin", () => {
  const check = (method: string, headers: Record<string, string>) => {
    try {
      assertSameOrigin(new Request(`${PUBLIC}/api/x`, { method, headers }), PUBLIC);
      return "pass";
    } catch (err) {
      expect(err).toMatchObject({ status: 403, code: "cross_site_request" });
      return "refused";
    }
  };

  it("refuses a foreign Origin or Sec-Fetch-Site on POST, PUT, PATCH and DELETE", () => {
    for (const method of ["POST", "PUT", "PATCH", "DELETE", "post"]) {
      expect(check(method, EVIL)).toBe("refused");
      expect(check(method, { origin: "null" })).toBe("refused");
      expect(check(method, { origin: "http://localhost:3001" })).toBe("refused");
      expect(check(method, { origin: "https://localhost:3000" })).toBe("refused");
      expect(check(method, { "sec-fetch-site": "cross-site" })).toBe("refused");
      expect(check(method, { "sec-fetch-site": "same-site" })).toBe("refused");
      expect(check(method, { origin: PUBLIC, "sec-fetch-site": "cross-site" })).toBe("refused");
    }
  });

  it("passes the public origin (and its loopback aliases), same-origin fetches, and header-less requests", () => {
    expect(check("POST", { origin: PUBLIC })).toBe("pass");
    expect(check("POST", { origin: "http://127.0.0.1:3000" })).toBe("pass");
    expect(check("POST", { origin: "http://[::1]:3000" })).toBe("pass");
    expect(check("POST", { "sec-fetch-site": "same-origin" })).toBe("pass");
    expect(check("POST", { "sec-fetch-site": "none" })).toBe("pass");
    expect(check("POST", { origin: PUBLIC, "sec-fetch-site": "same-origin" })).toBe("pass");
    expect(check("DELETE", {})).toBe("pass");
  });

  it("leaves GET, HEAD and OPTIONS alone", () => {
    for (const method of ["GET", "HEAD", "OPTIONS"]) expect(check(method, EVIL)).toBe("pass");
  });
});

describe("the routes named in the issue", () => {
  it("POST /api/auth/signout: cross-site 403 keeps the session; same-origin signs out", async () => {
    const { user, jar } = await signedInUser();
    const refused = await call(SIGNOUT, { method: "POST", path: "/api/auth/signout", jar, headers: EVIL });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(CROSS_SITE_BODY);
    expect(refused.headers.getSetCookie()).toEqual([]);
    expect(await sessionCount(user.id)).toBe(1);

    const bySite = await call(SIGNOUT, {
      method: "POST",
      path: "/api/auth/signout",
      jar,
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(bySite.status).toBe(403);
    expect(await sessionCount(user.id)).toBe(1);

    const own = await call(SIGNOUT, {
      method: "POST",
      path: "/api/auth/signout",
      jar,
      headers: { origin: PUBLIC, "sec-fetch-site": "same-origin" },
    });
    expect(own.status).toBe(200);
    expect(await own.json()).toEqual({ ok: true });
    expect(await sessionCount(user.id)).toBe(0);
  });

  it("POST /api/passkey/register/options: cross-site 403 stores no challenge; header-less and same-origin pass", async () => {
    const { user, jar } = await signedInUser();
    const options = (headers: Record<string, string>) =>
      call(REGISTER_OPTIONS, { method: "POST", path: "/api/passkey/register/options", jar, headers });
    const refused = await options(EVIL);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(CROSS_SITE_BODY);
    expect(await challengeCount(user.id)).toBe(0);

    expect((await options({})).status).toBe(200);
    expect((await options({ "sec-fetch-site": "same-origin" })).status).toBe(200);
    expect(await challengeCount(user.id)).toBe(2);
  });

  it("POST /api/provision: cross-site 403 creates no agent and never calls the backend; header-less provisions", async () => {
    const { user, jar } = await signedInUser();
    const before = backend.exchanges.length;
    const provision = (request: Partial<TestRequest>) =>
      call(PROVISION, { method: "POST", path: "/api/provision", json: {}, jar, ...request });
    const refused = await provision({ headers: EVIL });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual(CROSS_SITE_BODY);
    expect(await agentCount(user.id)).toBe(0);
    expect(backend.exchanges.length).toBe(before);

    const own = await provision({});
    expect(own.status).toBe(202);
    expect(await agentCount(user.id)).toBe(1);
    expect(backend.exchanges.length).toBe(before + 1);
  });

  it("POST /api/runtime/restart: cross-site 403 (runtime error shape) never reaches the backend; same-origin does", async () => {
    const { user, jar } = await signedInUser();
    await db()
      .insert(agents)
      .values({ id: `agt_origin_${user.id.slice(-8)}`, userId: user.id, name: "Runner" });
    const before = backend.exchanges.length;
    const restart = (headers: Record<string, string>) =>
      call(RESTART, { method: "POST", path: "/api/runtime/restart", jar, headers });
    const refused = await restart(EVIL);
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({
      error: "cross_site_request",
      message: "cross-site request refused",
    });
    expect((await restart({ "sec-fetch-site": "cross-site" })).status).toBe(403);
    expect(backend.exchanges.length).toBe(before);

    await restart({ origin: PUBLIC });
    expect(backend.exchanges.slice(before).map((e) => `${e.method} ${e.path}`)).toEqual([
      `POST /api/agents/agt_origin_${user.id.slice(-8)}/restart`,
    ]);
  });

  it("the hosting webhook and the security-event receiver accept other sites (they authenticate the sender)", async () => {
    const hook = await call(HOSTING_WEBHOOK, {
      method: "POST",
      path: "/api/webhooks/hosting",
      json: { type: "deploy", status: "SUCCESS" },
      headers: { ...EVIL, "x-webhook-secret": "hook" },
    });
    expect(hook.status).toBe(200);
    const risc = await call(RISC, {
      method: "POST",
      path: "/api/security/risc",
      body: "not-a-token",
      headers: { ...EVIL, "content-type": "application/secevent+jwt" },
    });
    expect(risc.status).not.toBe(403);
  });
});

describe("every state-changing route of web/app/api", () => {
  const apiDir = fileURLToPath(new URL("../../../app/api", import.meta.url));
  const routeFiles = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) return routeFiles(path);
      return entry.name === "route.ts" ? [path] : [];
    });

  it("refuses a cross-site request before doing anything, except the routes other servers post to (they opt out)", async () => {
    const accepted: string[] = [];
    let checked = 0;
    for (const file of routeFiles(apiDir)) {
      const module = (await import(file)) as Record<string, unknown>;
      const path = `/api/${file.slice(apiDir.length + 1, -"/route.ts".length)}`;
      for (const method of ["POST", "PUT", "PATCH", "DELETE"]) {
        const handler = module[method];
        if (typeof handler !== "function") continue;
        checked += 1;
        const request = makeRequest({ method, path, headers: EVIL });
        const res = (await handler(request, { params: Promise.resolve({}) })) as Response;
        const body = (await res.json()) as Record<string, unknown>;
        const refused = res.status === 403 && (body.code ?? body.error) === "cross_site_request";
        if (!refused) accepted.push(`${method} ${path}`);
      }
    }
    expect(checked).toBeGreaterThanOrEqual(25);
    expect(accepted.sort()).toEqual([
      "POST /api/security/risc",
      "POST /api/webhooks/hosting",
      "POST /api/webhooks/stripe",
    ]);
  });
});
