import { readdir, readFile, rm } from "node:fs/promises";
import { join } from "node:path";
import { sha256Hex } from "@svc/common";
import { emailVerificationTokens, referralCredits, sessions, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { beforeEach, describe, expect, it } from "vitest";
import { GET as getAccount } from "@/app/api/account/route";
import { GET as getCsrf } from "@/app/api/auth/csrf/route";
import { POST as login } from "@/app/api/auth/login/route";
import { GET as getSession } from "@/app/api/auth/session/route";
import { POST as signout } from "@/app/api/auth/signout/route";
import { GET as verifyEmailRoute } from "@/app/api/auth/verify-email/route";
import { POST as register } from "@/app/api/register/route";
import { GET as getTrial } from "@/app/api/trial/route";
import { CookieJar, call, useWebTestContext, webContext } from "@/lib/infra/testing";
import { SESSION_COOKIE } from "../sessions/service";

const dataDir = `/tmp/svc-accounts-test-${process.pid}`;
const { clock } = useWebTestContext({
  ADMIN_EMAILS: "Boss@Example.com",
  DATA_DIR: dataDir,
  REFERRAL_CREDITS: "10",
});

let ipCounter = 0;
/** A fresh client address per test, so sign-up and login windows do not leak between tests. */
const freshIp = () => `198.51.100.${++ipCounter}`;
const db = () => webContext().db;
const countUsers = async () => (await db().select().from(users)).length;

async function signUp(body: Record<string, unknown>, ip = freshIp(), headers: Record<string, string> = {}) {
  return call(register, { method: "POST", path: "/api/register", json: body, ip, headers });
}

async function csrfJar(): Promise<{ jar: CookieJar; header: string }> {
  const jar = new CookieJar();
  const res = await call(getCsrf, { path: "/api/auth/csrf", jar });
  return { jar, header: (await res.json()).header };
}

async function logIn(email: string, password: string, ip = freshIp()) {
  const { jar, header } = await csrfJar();
  const res = await call(login, {
    method: "POST",
    path: "/api/auth/login",
    json: { email, password },
    jar,
    ip,
    headers: { "x-csrf-token": header },
  });
  return { res, jar };
}

async function latestMailLink(): Promise<string> {
  const dir = join(dataDir, "mail");
  const files = (await readdir(dir)).sort();
  const text = await readFile(join(dir, files.at(-1) as string), "utf8");
  return /http:\/\/localhost:3000\/api\/auth\/verify-email\?token=[\w-]+/.exec(text)?.[0] as string;
}

beforeEach(async () => {
  await rm(join(dataDir, "mail"), { recursive: true, force: true });
});

describe("POST /api/register", () => {
  it("creates the account with a lower-cased email, bcrypt cost 12, a trial and a referral code; no session", async () => {
    const res = await signUp({ email: "  Ada@Example.COM ", password: "correct horse" });
    expect(res.status).toBe(201);
    const body = await res.json();
    expect(body).toEqual({
      id: expect.stringMatching(/^usr_/),
      email: "ada@example.com",
      name: "ada@example.com",
    });
    // No session: only the sign-up browser's cookie, for the confirmation link (./signup-browser.ts).
    expect(res.headers.getSetCookie().map((c) => c.split("=")[0])).toEqual(["svc-signup"]);
    const [row] = await db().select().from(users).where(eq(users.id, body.id));
    expect(row.passwordHash).toMatch(/^\$2[aby]\$12\$/);
    expect(row.passwordHash).not.toContain("correct horse");
    expect(row.trialStartedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(row.referralCode).toMatch(/^[A-Z0-9]{8}$/);
    expect(row.emailVerifiedAt).toBeNull();
  });

  it("mails a single-use verification link (24 h) that proves the email", async () => {
    await signUp({ email: "verify@example.com", password: "password-1", name: "Vera" });
    const link = await latestMailLink();
    const first = await call(verifyEmailRoute, { path: link });
    expect(first.status).toBe(302);
    // Opened in a browser that neither signed up nor is signed in: the sign-in page says it is confirmed.
    expect(first.headers.get("location")).toBe("http://localhost:3000/login?verified=1");
    const [row] = await db().select().from(users).where(eq(users.email, "verify@example.com"));
    expect(row.emailVerifiedAt).not.toBeNull();
    const again = await call(verifyEmailRoute, { path: link });
    expect(again.headers.get("location")).toBe("http://localhost:3000/login?error=VerificationFailed");
    const tokens = await db()
      .select()
      .from(emailVerificationTokens)
      .where(eq(emailVerificationTokens.userId, row.id));
    expect(tokens[0].tokenHash).toMatch(/^[0-9a-f]{64}$/);
    expect(link).not.toContain(tokens[0].tokenHash);
  });

  it("refuses an expired verification link", async () => {
    await signUp({ email: "late@example.com", password: "password-1" });
    const link = await latestMailLink();
    clock.advance(24 * 60 * 60 * 1000 + 1000);
    const res = await call(verifyEmailRoute, { path: link });
    expect(res.headers.get("location")).toBe("http://localhost:3000/login?error=VerificationFailed");
  });

  it("makes an ADMIN_EMAILS address admin only once its ownership is proven", async () => {
    await signUp({ email: "boss@example.com", password: "password-1" });
    const link = await latestMailLink();
    const { res, jar } = await logIn("boss@example.com", "password-1");
    expect(res.status).toBe(200);
    const before = await (await call(getSession, { path: "/api/auth/session", jar })).json();
    expect(before.user.isAdmin).toBe(false);
    await call(verifyEmailRoute, { path: link });
    const after = await (await call(getSession, { path: "/api/auth/session", jar })).json();
    expect(after.user).toEqual({
      id: expect.any(String),
      name: "boss@example.com",
      email: "boss@example.com",
      isAdmin: true,
    });
  });

  it("credits both users for a valid referral code (case-insensitive)", async () => {
    const referrer = await (await signUp({ email: "referrer@example.com", password: "password-1" })).json();
    const [row] = await db().select().from(users).where(eq(users.id, referrer.id));
    const res = await signUp({
      email: "friend@example.com",
      password: "password-1",
      referralCode: row.referralCode.toLowerCase(),
    });
    expect(res.status).toBe(201);
    const friend = await res.json();
    const credits = await db().select().from(referralCredits);
    expect(
      credits
        .map((c) => ({ userId: c.userId, amount: c.amount, related: c.relatedUserId }))
        .sort((a, b) => a.userId.localeCompare(b.userId)),
    ).toEqual(
      [
        { userId: friend.id, amount: "10.00", related: referrer.id },
        { userId: referrer.id, amount: "10.00", related: friend.id },
      ].sort((a, b) => a.userId.localeCompare(b.userId)),
    );
  });

  it.each([
    [{ password: "password-1" }, "Email is required", "email"],
    [{ email: "a@example.com" }, "Password is required", "password"],
    [{ email: "not-an-email", password: "password-1" }, "Email is not a valid address", "email"],
    [{ email: "a@example.com", password: "short" }, "Password must be at least 8 characters", "password"],
    [{ email: "a@example.com", password: "é".repeat(37) }, "Password must be at most 72 bytes", "password"],
    [{ email: 42, password: "password-1" }, "Email must be a string", "email"],
    [
      { email: "a@example.com", password: "password-1", referralCode: "bad code!" },
      "Referral code must be letters, digits and hyphens, at most 20 characters",
      "referralCode",
    ],
    [
      { email: "a@example.com", password: "password-1", referralCode: "X".repeat(21) },
      "Referral code must be letters, digits and hyphens, at most 20 characters",
      "referralCode",
    ],
    [
      { email: "a@example.com", password: "password-1", referralCode: "NOSUCHCODE" },
      "Referral code is unknown: check it, or leave it empty",
      "referralCode",
    ],
  ])("400 for %j", async (body, message, field) => {
    const before = await countUsers();
    const res = await signUp(body);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: message, field });
    expect(await countUsers()).toBe(before);
  });

  it("400 for bad JSON, a non-object and a non-JSON content type", async () => {
    const before = await countUsers();
    for (const [body, type, message] of [
      ["{oops", "application/json", "request body is not valid JSON"],
      ["[1]", "application/json", "request body must be a JSON object"],
      ["email=a", "application/x-www-form-urlencoded", "Content-Type must be application/json"],
    ]) {
      const res = await call(register, {
        method: "POST",
        body,
        headers: { "content-type": type },
        ip: freshIp(),
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: message, code: expect.any(String) });
    }
    expect(await countUsers()).toBe(before);
  });

  it("409 when the email exists, whatever its case", async () => {
    await signUp({ email: "twice@example.com", password: "password-1" });
    const res = await signUp({ email: "TWICE@example.com", password: "password-2" });
    expect(res.status).toBe(409);
    expect(await res.json()).toEqual({
      error: "an account with this email already exists",
      code: "user_exists",
      field: "email",
    });
  });

  it("403 for a missing User-Agent or an automation client", async () => {
    const before = await countUsers();
    for (const ua of [
      "",
      "curl/8.5.0",
      "python-requests/2.31",
      "Go-http-client/1.1",
      "Mozilla/5.0 HeadlessChrome/120.0",
    ]) {
      const res = await signUp({ email: "bot@example.com", password: "password-1" }, freshIp(), {
        "user-agent": ua,
      });
      expect(res.status, ua).toBe(403);
      expect((await res.json()).code).toBe("bot_detected");
    }
    expect(await countUsers()).toBe(before);
  });

  it("429 on the 6th sign-up from one address within an hour", async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++)
      expect((await signUp({ email: `burst${i}@example.com`, password: "password-1" }, ip)).status).toBe(201);
    const sixth = await signUp({ email: "burst5@example.com", password: "password-1" }, ip);
    expect(sixth.status).toBe(429);
    expect(await sixth.json()).toMatchObject({ code: "rate_limited", retryAfterSeconds: expect.any(Number) });
    expect((await signUp({ email: "other-ip@example.com", password: "password-1" })).status).toBe(201);
    clock.advance(60 * 60 * 1000);
    expect((await signUp({ email: "burst5@example.com", password: "password-1" }, ip)).status).toBe(201);
  }, 60_000);
});

describe("CSRF and POST /api/auth/login", () => {
  it("GET /api/auth/csrf returns {token, signed, header} and a short-lived cookie", async () => {
    const jar = new CookieJar();
    const res = await call(getCsrf, { path: "/api/auth/csrf", jar });
    const body = await res.json();
    expect(body).toEqual({
      token: expect.any(String),
      signed: expect.stringMatching(/^[0-9a-f]{64}$/),
      header: `${body.token}:${body.signed}`,
    });
    expect(res.headers.get("set-cookie")).toBe(
      `svc-csrf=${body.token}; Path=/; Max-Age=3600; HttpOnly; SameSite=Lax`,
    );
  });

  it("signs in with {ok, user} and a 30-day session cookie", async () => {
    const account = await (
      await signUp({ email: "login@example.com", password: "password-1", name: "Lo Gin" })
    ).json();
    const { res, jar } = await logIn("LOGIN@example.com", "password-1");
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, user: { id: account.id, name: "Lo Gin" } });
    expect(res.headers.get("set-cookie")).toMatch(
      /^svc-session=[\w-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/,
    );
    const session = await (await call(getSession, { path: "/api/auth/session", jar })).json();
    expect(session).toEqual({
      user: { id: account.id, name: "Lo Gin", email: "login@example.com", isAdmin: false },
    });
  });

  it("403 without the header, with a token not matching the cookie, or with a bad signature; x-xsrf-token works", async () => {
    await signUp({ email: "csrf@example.com", password: "password-1" });
    const { jar, header } = await csrfJar();
    const attempt = (headers: Record<string, string>, cookieJar = jar) =>
      call(login, {
        method: "POST",
        json: { email: "csrf@example.com", password: "password-1" },
        jar: cookieJar,
        headers,
        ip: freshIp(),
      });
    expect((await attempt({})).status).toBe(403);
    const [token, signed] = header.split(":");
    expect((await attempt({ "x-csrf-token": `${token}:${"0".repeat(64)}` })).status).toBe(403);
    const other = await csrfJar();
    expect((await attempt({ "x-csrf-token": other.header })).status).toBe(403);
    expect((await attempt({ "x-csrf-token": header }, new CookieJar())).status).toBe(403);
    const forbidden = await attempt({ "x-csrf-token": `${token}x:${signed}` });
    expect(await forbidden.json()).toEqual({ error: "missing or invalid CSRF token", code: "csrf_failed" });
    expect((await attempt({ "x-xsrf-token": header })).status).toBe(200);
  });

  it("401 for a wrong password and for an unknown email; 400 for missing fields", async () => {
    await signUp({ email: "wrong@example.com", password: "password-1" });
    const wrong = await logIn("wrong@example.com", "password-2");
    expect(wrong.res.status).toBe(401);
    expect(await wrong.res.json()).toEqual({
      error: "invalid email or password",
      code: "invalid_credentials",
    });
    expect((await logIn("nobody@example.com", "password-1")).res.status).toBe(401);
    const { jar, header } = await csrfJar();
    const missing = await call(login, {
      method: "POST",
      json: { email: "wrong@example.com" },
      jar,
      headers: { "x-csrf-token": header },
      ip: freshIp(),
    });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({
      error: "Password is required",
      code: "invalid_request",
      field: "password",
    });
  });

  it("the 6th attempt from one address in 15 minutes gets 429, even with the right password; later it works", async () => {
    await signUp({ email: "limited@example.com", password: "password-1" });
    const ip = freshIp();
    for (let i = 0; i < 5; i++)
      expect((await logIn("limited@example.com", "nope-nope", ip)).res.status).toBe(401);
    const sixth = await logIn("limited@example.com", "password-1", ip);
    expect(sixth.res.status).toBe(429);
    expect((await sixth.res.json()).code).toBe("rate_limited");
    expect((await logIn("limited@example.com", "password-1")).res.status).toBe(200);
    clock.advance(15 * 60 * 1000);
    expect((await logIn("limited@example.com", "password-1", ip)).res.status).toBe(200);
  }, 60_000);
});

describe("session, sign-out, trial, account", () => {
  it("stores only the SHA-256 of the session token; expired sessions read as {user: null}", async () => {
    await signUp({ email: "sess@example.com", password: "password-1" });
    const { jar } = await logIn("sess@example.com", "password-1");
    const token = jar.get(SESSION_COOKIE) as string;
    const stored = await db().select().from(sessions);
    expect(stored.some((s) => s.tokenHash === token)).toBe(false);
    expect(stored.some((s) => s.tokenHash === sha256Hex(token))).toBe(true);
    clock.advance(30 * 24 * 60 * 60 * 1000 + 1000);
    expect(await (await call(getSession, { path: "/api/auth/session", jar })).json()).toEqual({ user: null });
  });

  it("sign-out deletes the session row and clears the cookie; always 200", async () => {
    await signUp({ email: "out@example.com", password: "password-1" });
    const { jar } = await logIn("out@example.com", "password-1");
    const token = jar.get(SESSION_COOKIE) as string;
    const res = await call(signout, { method: "POST", jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(res.headers.get("set-cookie")).toContain("svc-session=; Path=/; Max-Age=0");
    const again = new CookieJar();
    again.set(SESSION_COOKIE, token);
    expect(await (await call(getSession, { path: "/api/auth/session", jar: again })).json()).toEqual({
      user: null,
    });
    expect((await call(signout, { method: "POST" })).status).toBe(200);
  });

  it("one user's cookie never reads another user's data", async () => {
    await signUp({ email: "alice@example.com", password: "password-1", name: "Alice" });
    await signUp({ email: "bob@example.com", password: "password-1", name: "Bob" });
    const alice = await logIn("alice@example.com", "password-1");
    const account = await (await call(getAccount, { path: "/api/account", jar: alice.jar })).json();
    expect(account).toMatchObject({
      email: "alice@example.com",
      name: "Alice",
      emailVerified: false,
      referralCredits: "0",
    });
    expect(
      (await (await call(getSession, { path: "/api/auth/session", jar: alice.jar })).json()).user.email,
    ).toBe("alice@example.com");
  });

  it("GET /api/trial: 7 days from sign-up, then inactive; 401 without a session", async () => {
    await signUp({ email: "trial@example.com", password: "password-1" });
    const started = clock.now().toISOString();
    const { jar } = await logIn("trial@example.com", "password-1");
    expect(await (await call(getTrial, { path: "/api/trial", jar })).json()).toEqual({
      active: true,
      startedAt: started,
      endsAt: new Date(new Date(started).getTime() + 7 * 86_400_000).toISOString(),
      daysRemaining: 7,
    });
    clock.advance(6.5 * 86_400_000);
    expect((await (await call(getTrial, { path: "/api/trial", jar })).json()).daysRemaining).toBe(1);
    clock.advance(86_400_000);
    const ended = await (await call(getTrial, { path: "/api/trial", jar: new CookieJar() })).json();
    expect(ended).toEqual({ error: "sign in first", code: "unauthorized" });
  });
});
