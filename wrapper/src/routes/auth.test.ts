import { ManualClock } from "@svc/common";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { ADMIN_COOKIE, adminCookieValue, COOKIE_MAX_AGE_MS, safeNextPath } from "../auth/admin";
import { wrapperErrorMapper } from "../http/errors";
import { adminAuth } from "./auth";

const PASSWORD = "correct horse battery staple";

function appWith(password: string | undefined, clock = new ManualClock(), { trustProxy = false } = {}) {
  const auth = adminAuth(password, { clock });
  const app = express();
  // Lets a test speak as any client address (X-Forwarded-For), as a wrapper behind a proxy would see it.
  if (trustProxy) app.set("trust proxy", true);
  app.use(auth.loginRoutes);
  app.get("/api/secret", auth.requireAdmin, (req, res) => {
    res.json({ ok: true, admin: auth.isAdmin(req) });
  });
  app.get("/dashboard", auth.requireAdmin, (_req, res) => {
    res.type("html").send("<p>dashboard</p>");
  });
  app.use(wrapperErrorMapper());
  return { app, clock };
}

/** The `ocw_admin` value a login answer sets. */
function cookieOf(res: { headers: Record<string, unknown> }): string {
  const match = new RegExp(`${ADMIN_COOKIE}=([^;]+)`).exec(String(res.headers["set-cookie"]));
  if (!match) throw new Error(`no ${ADMIN_COOKIE} cookie in ${String(res.headers["set-cookie"])}`);
  return match[1];
}

describe("adminAuth with a password", () => {
  const { app } = appWith(PASSWORD);

  it("answers API calls without credentials with 401", async () => {
    const res = await request(app).get("/api/secret");
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ ok: false, error: "unauthorized" });
  });

  it("redirects a browser GET to /login with the path as next", async () => {
    const res = await request(app)
      .get("/dashboard?tab=logs")
      .set("Accept", "text/html,application/xhtml+xml");
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`/login?next=${encodeURIComponent("/dashboard?tab=logs")}`);
  });

  it("does not redirect a browser POST (401 instead)", async () => {
    const { app: postApp } = appWith(PASSWORD);
    const auth = adminAuth(PASSWORD);
    postApp.post("/api/thing", auth.requireAdmin, (_req, res) => res.json({ ok: true }));
    const res = await request(postApp).post("/api/thing").set("Accept", "text/html");
    expect(res.status).toBe(401);
  });

  it("accepts Authorization: Bearer <password>", async () => {
    const res = await request(app).get("/api/secret").set("Authorization", `Bearer ${PASSWORD}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, admin: true });
  });

  it("rejects a wrong Bearer token", async () => {
    const res = await request(app).get("/api/secret").set("Authorization", `Bearer ${PASSWORD}x`);
    expect(res.status).toBe(401);
  });

  it("accepts x-admin-token", async () => {
    const res = await request(app).get("/api/secret").set("x-admin-token", PASSWORD);
    expect(res.status).toBe(200);
    expect((await request(app).get("/api/secret").set("x-admin-token", "nope")).status).toBe(401);
  });

  it("accepts the cookie a login issued, and not the raw password, another password's or a forged one", async () => {
    const login = await request(app).post("/login").send({ password: PASSWORD });
    const value = cookieOf(login);
    expect(value).not.toContain(PASSWORD);
    expect(value).toMatch(/^\d+\.[0-9a-f]{64}$/);
    const ok = await request(app).get("/api/secret").set("Cookie", `other=1; ${ADMIN_COOKIE}=${value}`);
    expect(ok.status).toBe(200);
    const raw = await request(app)
      .get("/api/secret")
      .set("Cookie", `${ADMIN_COOKIE}=${encodeURIComponent(PASSWORD)}`);
    expect(raw.status).toBe(401);
    const [issuedAt] = value.split(".");
    for (const forged of [
      adminCookieValue("another", "any-key", Number(issuedAt)),
      adminCookieValue(PASSWORD, "not-this-process-key", Number(issuedAt)),
      `${Number(issuedAt) + 1}.${value.split(".")[1]}`,
    ]) {
      const res = await request(app).get("/api/secret").set("Cookie", `${ADMIN_COOKIE}=${forged}`);
      expect(res.status, forged).toBe(401);
    }
  });

  it("refuses a cookie 7 days after it was issued, whatever the browser keeps", async () => {
    const { app: timed, clock } = appWith(PASSWORD);
    const value = cookieOf(await request(timed).post("/login").send({ password: PASSWORD }));
    const secret = () => request(timed).get("/api/secret").set("Cookie", `${ADMIN_COOKIE}=${value}`);
    clock.advance(COOKIE_MAX_AGE_MS - 1);
    expect((await secret()).status).toBe(200);
    clock.advance(1);
    expect((await secret()).status).toBe(401);
  });

  it("an admin's logout ends every cookie issued so far; anyone else's logout ends none", async () => {
    const { app: fresh } = appWith(PASSWORD);
    const first = cookieOf(await request(fresh).post("/login").send({ password: PASSWORD }));
    const second = cookieOf(await request(fresh).post("/login").send({ password: PASSWORD }));
    const secret = (value: string) =>
      request(fresh).get("/api/secret").set("Cookie", `${ADMIN_COOKIE}=${value}`);
    // A stranger's logout (no cookie) changes nothing.
    expect((await request(fresh).post("/logout")).status).toBe(200);
    expect((await secret(first)).status).toBe(200);
    await request(fresh).post("/logout").set("Cookie", `${ADMIN_COOKIE}=${second}`);
    expect((await secret(first)).status).toBe(401);
    expect((await secret(second)).status).toBe(401);
    // A new login works again.
    const third = cookieOf(await request(fresh).post("/login").send({ password: PASSWORD }));
    expect((await secret(third)).status).toBe(200);
  });

  it("marks the cookie Secure when the browser came over HTTPS (the platform's TLS edge says so)", async () => {
    const behindTls = await request(app)
      .post("/login")
      .set("X-Forwarded-Proto", "https")
      .send({ password: PASSWORD });
    expect(String(behindTls.headers["set-cookie"])).toContain("Secure");
    const plain = await request(app).post("/login").send({ password: PASSWORD });
    expect(String(plain.headers["set-cookie"])).not.toContain("Secure");
  });

  it("serves an accessible login form", async () => {
    const res = await request(app).get("/login?next=/dashboard");
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/text\/html/);
    expect(res.text).toContain('<label for="password">');
    expect(res.text).toContain('id="password" name="password" type="password"');
    expect(res.text).toContain('<button type="submit">');
    expect(res.text).toContain('name="next" value="/dashboard"');
  });

  it("logs in with a form post: sets the cookie and 303 to next", async () => {
    const res = await request(app)
      .post("/login")
      .type("form")
      .send({ password: PASSWORD, next: "/dashboard?tab=logs" });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/dashboard?tab=logs");
    const cookie = String(res.headers["set-cookie"]);
    expect(cookie).toMatch(new RegExp(`${ADMIN_COOKIE}=\\d+\\.[0-9a-f]{64};`));
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Strict");
    expect(cookie).toContain("Path=/");
    expect(cookie).toContain("Max-Age=604800");
    expect(cookie).not.toContain(PASSWORD);

    const agent = request.agent(app);
    await agent.post("/login").send({ password: PASSWORD });
    expect((await agent.get("/api/secret")).body).toEqual({ ok: true, admin: true });
  });

  it("logs in with JSON and takes next from the query", async () => {
    const res = await request(app).post("/login?next=/api/secret").send({ password: PASSWORD });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/api/secret");
  });

  it("refuses open redirects", async () => {
    for (const next of [
      "https://evil.example/",
      "//evil.example/",
      "/\\evil.example",
      "javascript:alert(1)",
      "",
    ]) {
      const res = await request(app).post("/login").type("form").send({ password: PASSWORD, next });
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe("/");
    }
    expect(safeNextPath("/ok/path?x=1")).toBe("/ok/path?x=1");
    expect(safeNextPath("/a\nb")).toBe("/");
    expect(safeNextPath(["/x"])).toBe("/");
  });

  it("answers a wrong password with 401 and the form showing the error", async () => {
    const { app: fresh } = appWith(PASSWORD);
    const res = await request(fresh).post("/login").type("form").send({ password: "wrong", next: "/x" });
    expect(res.status).toBe(401);
    expect(res.headers["set-cookie"]).toBeUndefined();
    expect(res.text).toContain('role="alert"');
    expect(res.text).toContain("Wrong password");
    expect(res.text).toContain('aria-describedby="password-error"');
    const json = await request(fresh).post("/login").send({ password: "wrong" });
    expect(json.status).toBe(401);
    expect(json.body).toEqual({ ok: false, error: "Wrong password" });
  });

  it("counts an IPv6 client by its /64: rotating addresses within it opens no new window (issue 24, item 9)", async () => {
    const { app: fresh } = appWith(PASSWORD, new ManualClock(), { trustProxy: true });
    const from = (address: string, password: string) =>
      request(fresh).post("/login").set("x-forwarded-for", address).send({ password });
    for (let i = 1; i <= 5; i++) expect((await from(`2001:db8:1:2::${i}`, `wrong${i}`)).status).toBe(401);
    expect((await from("2001:db8:1:2:ffff:ffff:ffff:ffff", PASSWORD)).status).toBe(429);
    // Another /64, and an IPv4 client, have their own windows.
    expect((await from("2001:db8:1:3::1", PASSWORD)).status).toBe(303);
    expect((await from("203.0.113.9", PASSWORD)).status).toBe(303);
  });

  it("answers 429 after 5 wrong tries in a minute, even for the right password, until the window ends", async () => {
    const { app: fresh, clock } = appWith(PASSWORD);
    for (let i = 0; i < 5; i++) {
      expect(
        (
          await request(fresh)
            .post("/login")
            .send({ password: `wrong${i}` })
        ).status,
      ).toBe(401);
    }
    const limited = await request(fresh).post("/login").send({ password: PASSWORD });
    expect(limited.status).toBe(429);
    expect(limited.headers["set-cookie"]).toBeUndefined();
    expect(Number(limited.headers["retry-after"])).toBeGreaterThan(0);
    clock.advance(60_000);
    const after = await request(fresh).post("/login").send({ password: PASSWORD });
    expect(after.status).toBe(303);
  });

  it("answers bad JSON on /login with 400", async () => {
    const res = await request(app).post("/login").set("Content-Type", "application/json").send("{nope");
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ ok: false, error: "body is not valid JSON" });
  });

  it("logout clears the cookie", async () => {
    const res = await request(app).post("/logout");
    expect(res.status).toBe(200);
    expect(String(res.headers["set-cookie"])).toMatch(
      new RegExp(`${ADMIN_COOKIE}=;.*Expires=Thu, 01 Jan 1970`),
    );
  });
});

describe("adminAuth without a password", () => {
  const { app } = appWith(undefined);

  it("treats every request as admin", async () => {
    const res = await request(app).get("/api/secret");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ok: true, admin: true });
    const page = await request(app).get("/dashboard").set("Accept", "text/html");
    expect(page.status).toBe(200);
  });

  it("sends /login straight to next", async () => {
    const res = await request(app).get("/login?next=/dashboard");
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe("/dashboard");
  });

  it("treats an empty password as unset", async () => {
    const { app: empty } = appWith("");
    expect((await request(empty).get("/api/secret")).status).toBe(200);
  });
});
