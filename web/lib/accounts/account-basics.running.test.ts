/**
 * Account basics through the running web server (issue 26 item 7): the confirmation link (signed in only in
 * the browser that signed up), "forgot password" and the reset link, changing the password, the name and
 * the email. A real client (`fetch`) against web/server.ts; the mail is read from `<DATA_DIR>/mail`.
 */

import { hmacHex, randomToken, sha256Hex } from "@svc/common";
import { RUNNING_SESSION_SECRET, useRunningServers } from "@svc/common/testing/running-servers";
import { accountTokens, apiKeys, emailVerificationTokens, users } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { useRunningWebContext, webContext } from "../infra/testing";
import {
  accountWithPassword,
  freshIp,
  linkIn,
  mailsTo,
  readMails,
  signedInBrowser,
  WebClient,
  waitForMail,
} from "./testing";

const servers = useRunningServers({ web: { TRUST_PROXY: "true" } });
useRunningWebContext();
const url = () => servers.web.url;
const client = () => new WebClient(url, freshIp());
const db = () => webContext().db;
const uniqueEmail = (label: string) => `${label}-${Math.random().toString(36).slice(2, 8)}@example.com`;

async function accountRow(email: string) {
  const [row] = await db().select().from(users).where(eq(users.email, email));
  return row;
}

describe("the confirmation link", () => {
  async function signUp(browser: WebClient, email: string) {
    const res = await browser.fetch("/api/register", { json: { email, password: "password-1" } });
    expect(res.status).toBe(201);
    return res;
  }

  it("opened in the browser that signed up: the email is confirmed and that browser is signed in", async () => {
    const browser = client();
    const email = uniqueEmail("same-browser");
    const res = await signUp(browser, email);
    // No session, only the sign-up browser's cookie, sent to the confirmation link alone.
    const cookies = res.headers.getSetCookie();
    expect(cookies).toHaveLength(1);
    expect(cookies[0]).toMatch(
      /^svc-signup=usr_\w+\.\d+\.[0-9a-f]{64}; Path=\/api\/auth\/verify-email; Max-Age=3600; HttpOnly; SameSite=Lax$/,
    );
    expect(await browser.sessionUser()).toBeNull();

    const link = linkIn(
      await waitForMail(servers.dataDir, email, "Confirm your email"),
      "/api/auth/verify-email?token=",
    );
    const opened = await browser.fetch(link);
    expect(opened.status).toBe(302);
    expect(opened.headers.get("location")).toBe(`${url()}/dashboard?verified=1`);
    expect(opened.headers.getSetCookie().map((c) => c.split("=")[0])).toEqual(["svc-session", "svc-signup"]);
    expect(await browser.sessionUser()).toMatchObject({ email });
    expect((await accountRow(email)).emailVerifiedAt).not.toBeNull();
  });

  it("opened anywhere else: confirmed, and the sign-in page says so; nobody is signed in", async () => {
    const signedUp = client();
    const email = uniqueEmail("other-browser");
    await signUp(signedUp, email);
    const link = linkIn(
      await waitForMail(servers.dataDir, email, "Confirm your email"),
      "/api/auth/verify-email?token=",
    );
    const elsewhere = client();
    const opened = await elsewhere.fetch(link);
    expect(opened.headers.get("location")).toBe(`${url()}/login?verified=1`);
    expect(opened.headers.getSetCookie().some((c) => c.startsWith("svc-session="))).toBe(false);
    expect(await elsewhere.sessionUser()).toBeNull();
    expect((await accountRow(email)).emailVerifiedAt).not.toBeNull();
    // Used once: the sign-up browser cannot sign in with it afterwards.
    const again = await signedUp.fetch(link);
    expect(again.headers.get("location")).toBe(`${url()}/login?error=VerificationFailed`);
    expect(await signedUp.sessionUser()).toBeNull();
  });

  it("a sign-up cookie that is another account's, forged or expired signs nobody in", async () => {
    const email = uniqueEmail("forged");
    const victim = client();
    await signUp(victim, email);
    const link = linkIn(
      await waitForMail(servers.dataDir, email, "Confirm your email"),
      "/api/auth/verify-email?token=",
    );
    const { id } = await accountRow(email);
    const [, expires, signature] = (victim.jar.get("svc-signup") as string).split(".");
    const past = Date.now() - 1000;
    const attempts = [
      `${id}.${expires}.${"0".repeat(64)}`, // forged signature
      `${id}.${Number(expires) + 1}.${signature}`, // a longer life than signed
      // Signed by the server's secret, but its hour is over.
      `${id}.${past}.${hmacHex(RUNNING_SESSION_SECRET, `signup-browser:${id}:${past}`)}`,
    ];
    const other = client();
    await signUp(other, uniqueEmail("someone-else"));
    attempts.push(other.jar.get("svc-signup") as string); // another account's own cookie
    for (const cookie of [...attempts, undefined]) {
      const browser = client();
      if (cookie) browser.jar.set("svc-signup", cookie);
      // A good link each time (the mailed one for the last), so only the cookie decides.
      const token = randomToken(32);
      await db()
        .insert(emailVerificationTokens)
        .values({ tokenHash: sha256Hex(token), userId: id, expiresAt: new Date(Date.now() + 60_000) });
      const opened = await browser.fetch(cookie ? `/api/auth/verify-email?token=${token}` : link);
      expect(opened.headers.get("location"), cookie).toBe(`${url()}/login?verified=1`);
      expect(await browser.sessionUser(), cookie).toBeNull();
    }
    // The browser that signed up still can, with a link that is good.
    const token = randomToken(32);
    await db()
      .insert(emailVerificationTokens)
      .values({ tokenHash: sha256Hex(token), userId: id, expiresAt: new Date(Date.now() + 60_000) });
    expect((await victim.fetch(`/api/auth/verify-email?token=${token}`)).headers.get("location")).toBe(
      `${url()}/dashboard?verified=1`,
    );
  });

  it("POST /api/auth/verify-email resends it: 401 signed out, 409 once confirmed, 429 past 3 an hour", async () => {
    expect((await client().fetch("/api/auth/verify-email", { method: "POST" })).status).toBe(401);
    const { user, browser } = await accountWithPassword(url, "password-1", { verified: false });
    for (let i = 1; i <= 3; i++) {
      const res = await browser.fetch("/api/auth/verify-email", { method: "POST" });
      expect(await res.json()).toEqual({ sent: true, email: user.email });
    }
    const limited = await browser.fetch("/api/auth/verify-email", { method: "POST" });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({
      code: "rate_limited",
      retryAfterSeconds: expect.any(Number),
    });
    const links = (await mailsTo(servers.dataDir, user.email, "Confirm your email")).map((m) =>
      linkIn(m, "/api/auth/verify-email?token="),
    );
    expect(links).toHaveLength(3);
    // Only the newest works.
    expect((await browser.fetch(links[0])).headers.get("location")).toBe(
      `${url()}/login?error=VerificationFailed`,
    );
    expect((await browser.fetch(links[2])).headers.get("location")).toBe(`${url()}/dashboard?verified=1`);
    const confirmed = await accountWithPassword(url, "password-1");
    const res = await confirmed.browser.fetch("/api/auth/verify-email", { method: "POST" });
    expect([res.status, (await res.json()).code]).toEqual([409, "email_already_verified"]);
  });
});

describe("forgot password and the reset link", () => {
  const resetLinkOf = (mail: Parameters<typeof linkIn>[0]) => linkIn(mail, "/reset-password?token=");
  const tokenOf = (link: string) =>
    decodeURIComponent(new URL(link, "http://x").searchParams.get("token") as string);

  it("answers the same whether or not an account has the address; only the account gets a link", async () => {
    const { user } = await accountWithPassword(url, "password-1");
    const browser = client();
    const unknown = uniqueEmail("nobody");
    const answers = [];
    for (const email of [unknown, user.email.toUpperCase()]) {
      const res = await browser.fetch("/api/auth/forgot-password", { json: { email } });
      answers.push({ status: res.status, body: await res.json() });
    }
    expect(answers).toEqual([
      { status: 200, body: { sent: true } },
      { status: 200, body: { sent: true } },
    ]);
    const mail = await waitForMail(servers.dataDir, user.email, "Reset your Agent Platform password");
    expect(mail.text).toContain("within 1 hour");
    expect(resetLinkOf(mail)).toMatch(/^\/reset-password\?token=atk_\w+\.[\w-]{43}$/);
    expect(await mailsTo(servers.dataDir, unknown)).toEqual([]);
    // Stored as a hash: the row never holds the secret the link carries.
    const [id, secret] = tokenOf(resetLinkOf(mail)).split(".");
    const [row] = await db().select().from(accountTokens).where(eq(accountTokens.id, id));
    expect(row).toMatchObject({ userId: user.id, purpose: "password_reset", usedAt: null });
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.secretHash).not.toContain(secret);
    expect(row.expiresAt.getTime() - row.createdAt.getTime()).toBe(60 * 60 * 1000);
  });

  it("a new password through the link ends every session; the link works once", async () => {
    const { user, browser } = await accountWithPassword(url, "old-password-1");
    const other = await signedInBrowser(url, user.id);
    expect(await other.sessionUser()).toMatchObject({ id: user.id });
    await client().fetch("/api/auth/forgot-password", { json: { email: user.email } });
    const link = resetLinkOf(await waitForMail(servers.dataDir, user.email, "Reset your"));

    const stranger = client();
    const res = await stranger.fetch("/api/auth/reset-password", {
      json: { token: tokenOf(link), password: "new-password-2" },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    expect(await browser.sessionUser()).toBeNull();
    expect(await other.sessionUser()).toBeNull();
    expect(await client().signIn(user.email, "old-password-1")).toBe(401);
    const signIn = client();
    expect(await signIn.signIn(user.email, "new-password-2")).toBe(200);
    expect(await signIn.sessionUser()).toMatchObject({ id: user.id });
    await waitForMail(servers.dataDir, user.email, "password was changed");

    const again = await stranger.fetch("/api/auth/reset-password", {
      json: { token: tokenOf(link), password: "third-password-3" },
    });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error: "this reset link is invalid, already used or expired: ask for a new one",
      code: "invalid_reset_link",
    });
    expect(await client().signIn(user.email, "new-password-2")).toBe(200);
  });

  it("refuses an expired link, one a newer link replaced, and a wrong secret", async () => {
    const { user } = await accountWithPassword(url, "password-1");
    await client().fetch("/api/auth/forgot-password", { json: { email: user.email } });
    const first = tokenOf(resetLinkOf(await waitForMail(servers.dataDir, user.email, "Reset your", 1)));
    await client().fetch("/api/auth/forgot-password", { json: { email: user.email } });
    const second = tokenOf(resetLinkOf(await waitForMail(servers.dataDir, user.email, "Reset your", 2)));
    const reset = (token: string) =>
      client().fetch("/api/auth/reset-password", { json: { token, password: "new-password-2" } });
    expect((await reset(first)).status).toBe(400);
    const [id, secret] = second.split(".");
    const flipped = `${id}.${secret.slice(0, -1)}${secret.endsWith("A") ? "B" : "A"}`;
    expect((await reset(flipped)).status).toBe(400);
    expect((await reset("atk_nosuchtoken.abc")).status).toBe(400);
    // The hour passes (the server's clock is the system's: the row is moved instead).
    await db()
      .update(accountTokens)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(accountTokens.id, id));
    expect((await reset(second)).status).toBe(400);
    expect(await client().signIn(user.email, "password-1")).toBe(200);
  });

  it("a reset of an account whose email was never confirmed claims it: keys go, the email counts as confirmed", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1", { verified: false });
    const key = await browser.fetch("/api/keys", {
      json: { name: "left by whoever registered", scopes: ["all"] },
    });
    expect(key.status).toBe(201);
    await client().fetch("/api/auth/forgot-password", { json: { email: user.email } });
    const token = tokenOf(resetLinkOf(await waitForMail(servers.dataDir, user.email, "Reset your")));
    expect(
      (await client().fetch("/api/auth/reset-password", { json: { token, password: "mine-now-1" } })).status,
    ).toBe(200);
    expect(await db().select().from(apiKeys).where(eq(apiKeys.userId, user.id))).toEqual([]);
    expect((await accountRow(user.email)).emailVerifiedAt).not.toBeNull();
    expect(await client().signIn(user.email, "mine-now-1")).toBe(200);
  });

  it("limits: 429 past 5 requests from one address; past 3 mails an hour to one address, answered alike but nothing sent", async () => {
    const { user } = await accountWithPassword(url, "password-1");
    const browser = client();
    for (let i = 0; i < 5; i++) {
      expect(
        (await browser.fetch("/api/auth/forgot-password", { json: { email: uniqueEmail("x") } })).status,
      ).toBe(200);
    }
    const limited = await browser.fetch("/api/auth/forgot-password", { json: { email: user.email } });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({
      error: "too many password reset requests; try again later",
      code: "rate_limited",
    });
    expect(limited.headers.get("retry-after")).toMatch(/^\d+$/);
    for (let i = 0; i < 4; i++) {
      const res = await client().fetch("/api/auth/forgot-password", { json: { email: user.email } });
      expect(await res.json()).toEqual({ sent: true });
    }
    await waitForMail(servers.dataDir, user.email, "Reset your", 3);
    // The 4th request's work is done once a later request's is: one more from another account shows it.
    const marker = await accountWithPassword(url, "password-1");
    await client().fetch("/api/auth/forgot-password", { json: { email: marker.user.email } });
    await waitForMail(servers.dataDir, marker.user.email, "Reset your");
    expect(await mailsTo(servers.dataDir, user.email, "Reset your")).toHaveLength(3);
  });

  it("400 for bad input; reset attempts from one address are limited too", async () => {
    const browser = client();
    const bad = await browser.fetch("/api/auth/forgot-password", { json: { email: "not-an-email" } });
    expect([bad.status, (await bad.json()).error]).toEqual([400, "Email is not a valid address"]);
    const short = await browser.fetch("/api/auth/reset-password", {
      json: { token: "atk_x.y", password: "short" },
    });
    expect([short.status, (await short.json()).error]).toEqual([
      400,
      "New password must be at least 8 characters",
    ]);
    const noToken = await browser.fetch("/api/auth/reset-password", { json: { password: "long-enough-1" } });
    expect((await noToken.json()).error).toBe(
      "The reset link's token is missing: open the link from the mail again",
    );
    for (let i = 0; i < 10; i++) {
      const res = await browser.fetch("/api/auth/reset-password", {
        json: { token: `atk_guess${i}.x`, password: "long-enough-1" },
      });
      expect(res.status).toBe(400);
    }
    const limited = await browser.fetch("/api/auth/reset-password", {
      json: { token: "atk_guess.x", password: "long-enough-1" },
    });
    expect(limited.status).toBe(429);
  });
});

describe("Settings: password, name and email", () => {
  it("changing the password needs the current one and ends every other session", async () => {
    const { user, browser } = await accountWithPassword(url, "current-pass-1");
    const other = await signedInBrowser(url, user.id);
    const wrong = await browser.fetch("/api/account/password", {
      json: { currentPassword: "not-it-at-all", newPassword: "next-pass-2" },
    });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({
      error: "Current password is not right",
      code: "wrong_password",
      field: "currentPassword",
    });
    expect(await other.sessionUser()).not.toBeNull();
    const res = await browser.fetch("/api/account/password", {
      json: { currentPassword: "current-pass-1", newPassword: "next-pass-2" },
    });
    expect(await res.json()).toEqual({ ok: true, sessionsEnded: 1 });
    expect(await browser.sessionUser()).toMatchObject({ id: user.id });
    expect(await other.sessionUser()).toBeNull();
    expect(await client().signIn(user.email, "current-pass-1")).toBe(401);
    expect(await client().signIn(user.email, "next-pass-2")).toBe(200);
    expect((await waitForMail(servers.dataDir, user.email, "password was changed")).text).toContain(
      "changed in Settings",
    );
  });

  it("wrong current passwords are limited to 5 in 15 minutes, even before the right one", async () => {
    const { browser } = await accountWithPassword(url, "current-pass-1");
    for (let i = 0; i < 5; i++) {
      const res = await browser.fetch("/api/account/password", {
        json: { currentPassword: `guess-${i}-xx`, newPassword: "next-pass-2" },
      });
      expect(res.status).toBe(400);
    }
    const limited = await browser.fetch("/api/account/password", {
      json: { currentPassword: "current-pass-1", newPassword: "next-pass-2" },
    });
    expect(limited.status).toBe(429);
    expect((await limited.json()).error).toBe("too many wrong passwords; try again later");
  });

  it("password changes: 401 signed out, 400 for a short new one, 400 for an account without a password", async () => {
    expect(
      (
        await client().fetch("/api/account/password", {
          json: { currentPassword: "a", newPassword: "bbbbbbbb" },
        })
      ).status,
    ).toBe(401);
    const { browser } = await accountWithPassword(url, "current-pass-1");
    const short = await browser.fetch("/api/account/password", {
      json: { currentPassword: "current-pass-1", newPassword: "short" },
    });
    expect((await short.json()).error).toBe("New password must be at least 8 characters");
    const passkeyOnly = await accountWithPassword(url, "x-password-1");
    await db().update(users).set({ passwordHash: null }).where(eq(users.id, passkeyOnly.user.id));
    const none = await passkeyOnly.browser.fetch("/api/account/password", {
      json: { currentPassword: "anything-1", newPassword: "next-pass-2" },
    });
    expect([none.status, (await none.json()).code]).toEqual([400, "no_password"]);
  });

  it("PATCH /api/account renames the account (the session shows it); 400 for an empty or long name", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    const res = await browser.fetch("/api/account", { method: "PATCH", json: { name: "  Ada Lovelace " } });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      id: user.id,
      name: "Ada Lovelace",
      email: user.email,
      hasPassword: true,
    });
    expect(await browser.sessionUser()).toMatchObject({ name: "Ada Lovelace" });
    for (const [name, error] of [
      ["  ", "Name is required"],
      ["x".repeat(101), "Name must be at most 100 characters"],
    ]) {
      const bad = await browser.fetch("/api/account", { method: "PATCH", json: { name } });
      expect([bad.status, (await bad.json()).error]).toEqual([400, error]);
    }
    expect((await accountRow(user.email)).name).toBe("Ada Lovelace");
    expect((await client().fetch("/api/account", { method: "PATCH", json: { name: "X" } })).status).toBe(401);
  });

  it("changing the email: confirmed by the link at the new address, the old address told", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    const newEmail = uniqueEmail("moved");
    const wrong = await browser.fetch("/api/account/email", {
      json: { email: newEmail, password: "nope-nope" },
    });
    expect([wrong.status, (await wrong.json()).field]).toEqual([400, "password"]);
    const res = await browser.fetch("/api/account/email", {
      json: { email: newEmail.toUpperCase(), password: "password-1" },
    });
    expect(res.status).toBe(200);
    const sent = await res.json();
    expect(sent).toEqual({ sent: true, email: newEmail, expiresAt: expect.any(String) });
    // Until the link is opened the account keeps its address, and shows the pending one.
    const account = await (await browser.fetch("/api/account")).json();
    expect(account).toMatchObject({
      email: user.email,
      pendingEmail: { email: newEmail, expiresAt: sent.expiresAt },
    });
    expect(await mailsTo(servers.dataDir, user.email, "was changed")).toEqual([]);

    const link = linkIn(
      await waitForMail(servers.dataDir, newEmail, "Confirm your new email"),
      "/api/account/email/confirm?token=",
    );
    const opened = await browser.fetch(link);
    expect(opened.headers.get("location")).toBe(`${url()}/dashboard/settings?emailChanged=1`);
    expect(await (await browser.fetch("/api/account")).json()).toMatchObject({
      email: newEmail,
      emailVerified: true,
      pendingEmail: null,
    });
    const notice = await waitForMail(
      servers.dataDir,
      user.email,
      "email of your Agent Platform account was changed",
    );
    expect(notice.text).toContain(`is now ${newEmail}`);
    expect(await client().signIn(user.email, "password-1")).toBe(401);
    expect(await client().signIn(newEmail, "password-1")).toBe(200);
    // Used once; opened signed out it says so on the sign-in page.
    expect((await client().fetch(link)).headers.get("location")).toBe(
      `${url()}/login?error=EmailChangeFailed`,
    );
  });

  it("email changes: 400 for the same address, 409 for another account's, 429 past 3 links an hour", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    const taken = await accountWithPassword(url, "password-1");
    const same = await browser.fetch("/api/account/email", {
      json: { email: user.email, password: "password-1" },
    });
    expect([same.status, (await same.json()).code]).toEqual([400, "same_email"]);
    const conflict = await browser.fetch("/api/account/email", {
      json: { email: taken.user.email, password: "password-1" },
    });
    expect(await conflict.json()).toEqual({
      error: "New email belongs to another account",
      code: "email_taken",
      field: "email",
    });
    expect(conflict.status).toBe(409);
    for (let i = 0; i < 2; i++) {
      const res = await browser.fetch("/api/account/email", {
        json: { email: uniqueEmail("n"), password: "password-1" },
      });
      expect(res.status).toBe(200);
    }
    const limited = await browser.fetch("/api/account/email", {
      json: { email: uniqueEmail("n"), password: "password-1" },
    });
    expect(limited.status).toBe(429);
    expect((await accountRow(user.email)).email).toBe(user.email);
  });

  it("an address another account took meanwhile is refused when the link is opened", async () => {
    const { user, browser } = await accountWithPassword(url, "password-1");
    const wanted = uniqueEmail("wanted");
    await browser.fetch("/api/account/email", { json: { email: wanted, password: "password-1" } });
    const link = linkIn(
      await waitForMail(servers.dataDir, wanted, "Confirm your new email"),
      "/api/account/email/confirm?token=",
    );
    await accountWithPassword(url, "password-1", { email: wanted });
    expect((await browser.fetch(link)).headers.get("location")).toBe(`${url()}/login?error=EmailTaken`);
    expect((await accountRow(user.email)).id).toBe(user.id);
    expect(
      (await readMails(servers.dataDir)).some(
        (m) => m.to === user.email && m.subject.includes("was changed"),
      ),
    ).toBe(false);
  });
});
