import { createHash } from "node:crypto";
import { decryptText, sha256Hex } from "@svc/common";
import { startFakeOidcProvider } from "@svc/common/testing";
import { idpAccounts, sessions, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { decodeJwt } from "jose";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET as sessionRoute } from "@/app/api/auth/session/route";
import { createUser } from "../accounts/users";
import { CookieJar, call, useWebTestContext, webContext } from "../infra/testing";
import { createSession, SESSION_COOKIE } from "../sessions/service";
import { FLOW_COOKIE } from "./flow";
import { idpTokenKey } from "./service";
import { signInThroughProvider } from "./testing/sign-in";

const fake = await startFakeOidcProvider();
const { clock } = useWebTestContext({
  IDP_ISSUER: fake.url,
  IDP_CLIENT_ID: fake.clientId,
  IDP_CLIENT_SECRET: fake.clientSecret,
});
fake.setNow(() => clock.now());
afterAll(() => fake.close());
beforeEach(() => fake.reset());

async function sessionUser(jar: CookieJar) {
  const res = await call(sessionRoute, { path: "/api/auth/session", jar });
  return (await res.json()).user;
}

async function userByEmail(email: string) {
  const rows = await webContext().db.select().from(users).where(eq(users.email, email));
  return rows[0];
}

describe("GET /api/auth/idp", () => {
  it("redirects to the provider's authorization endpoint with PKCE, state and nonce in a sealed cookie", async () => {
    const jar = new CookieJar();
    const { GET } = await import("@/app/api/auth/idp/route");
    const res = await call(GET, { path: "/api/auth/idp", jar });
    expect(res.status).toBe(302);
    const location = new URL(res.headers.get("location") ?? "");
    expect(`${location.origin}${location.pathname}`).toBe(`${fake.url}/authorize`);
    const q = location.searchParams;
    expect(q.get("response_type")).toBe("code");
    expect(q.get("client_id")).toBe(fake.clientId);
    expect(q.get("redirect_uri")).toBe("http://localhost:3000/api/auth/idp/callback");
    expect(q.get("scope")).toBe("openid email profile");
    expect(q.get("access_type")).toBe("offline");
    expect(q.get("prompt")).toBe("select_account");
    expect(q.get("code_challenge_method")).toBe("S256");
    expect(q.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const state = q.get("state") ?? "";
    const nonce = q.get("nonce") ?? "";
    expect(state.length).toBeGreaterThanOrEqual(32);
    expect(nonce.length).toBeGreaterThanOrEqual(32);
    expect(state).not.toBe(nonce);

    const setCookie = res.headers.getSetCookie().find((c) => c.startsWith(`${FLOW_COOKIE}=`)) ?? "";
    expect(setCookie).toMatch(/; Max-Age=600(;|$)/);
    expect(setCookie).toContain("HttpOnly");
    expect(setCookie).toContain("SameSite=Lax");
    expect(setCookie).toContain("Path=/api/auth/idp");
    const sealed = jar.get(FLOW_COOKIE) ?? "";
    expect(sealed).toMatch(/^v1\./);
    expect(decodeURIComponent(sealed)).not.toContain(state);
    expect(decodeURIComponent(sealed)).not.toContain(nonce);
  });

  it("gives a fresh state, nonce and challenge to every start", async () => {
    const { GET } = await import("@/app/api/auth/idp/route");
    const a = new URL((await call(GET, { path: "/api/auth/idp" })).headers.get("location") ?? "");
    const b = new URL((await call(GET, { path: "/api/auth/idp" })).headers.get("location") ?? "");
    for (const name of ["state", "nonce", "code_challenge"]) {
      expect(a.searchParams.get(name)).not.toBe(b.searchParams.get(name));
    }
  });
});

describe("GET /api/auth/idp/callback", () => {
  it("creates a new account from the provider's identity and signs it in", async () => {
    fake.setAccount({
      sub: "sub-new-1",
      email: "New.Person@Example.com",
      email_verified: true,
      name: "New Person",
    });
    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar);

    expect(trip.response.status).toBe(302);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    expect(jar.get(FLOW_COOKIE)).toBeUndefined();
    const sessionCookie = trip.response.headers
      .getSetCookie()
      .find((c) => c.startsWith(`${SESSION_COOKIE}=`));
    expect(sessionCookie).toContain("HttpOnly");
    expect(sessionCookie).toContain("Max-Age=2592000");

    const user = await userByEmail("new.person@example.com");
    expect(user).toBeDefined();
    expect(user.name).toBe("New Person");
    expect(user.passwordHash).toBeNull();
    expect(user.emailVerifiedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(await sessionUser(jar)).toEqual({
      id: user.id,
      name: "New Person",
      email: "new.person@example.com",
      isAdmin: false,
    });

    const links = await webContext().db.select().from(idpAccounts).where(eq(idpAccounts.userId, user.id));
    expect(links).toHaveLength(1);
    expect(links[0].provider).toBe("oidc");
    expect(links[0].providerAccountId).toBe("sub-new-1");
    expect(links[0].scope).toBe("openid email profile");
    expect(links[0].expiresAt?.getTime()).toBe(clock.now().getTime() + 3599 * 1000);

    const [session] = await webContext().db.select().from(sessions).where(eq(sessions.userId, user.id));
    expect(session.ip).toBe("203.0.113.7");
    expect(session.tokenHash).toBe(sha256Hex(jar.get(SESSION_COOKIE) ?? ""));
  });

  it("returns to the page sign-in was asked from (`next`), never to another site", async () => {
    fake.setAccount({ sub: "sub-next-1", email: "next@example.com", email_verified: true, name: "Next" });
    const back = await signInThroughProvider(new CookieJar(), {
      startPath: `/api/auth/idp?next=${encodeURIComponent("/dashboard/files?agent=a1")}`,
    });
    expect(back.location).toBe("http://localhost:3000/dashboard/files?agent=a1");
    for (const next of ["//evil.example/x", "https://evil.example/x", "/\\evil.example", "/api/keys"]) {
      const trip = await signInThroughProvider(new CookieJar(), {
        startPath: `/api/auth/idp?next=${encodeURIComponent(next)}`,
      });
      expect(trip.location, next).toBe("http://localhost:3000/dashboard");
    }
  });

  it("exchanges the code with the PKCE verifier whose S256 challenge went to /authorize", async () => {
    fake.setAccount({ sub: "sub-pkce", email: "pkce@example.com", email_verified: true, name: "P" });
    const before = fake.upstream.requests.length;
    const trip = await signInThroughProvider();
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    const tokenRequest = fake.upstream.requests.slice(before).find((r) => r.path === "/token");
    const form = new URLSearchParams(tokenRequest?.body.toString("utf8"));
    const verifier = form.get("code_verifier") ?? "";
    expect(verifier.length).toBeGreaterThanOrEqual(43);
    expect(createHash("sha256").update(verifier).digest("base64url")).toBe(
      trip.authorizeUrl?.searchParams.get("code_challenge"),
    );
    expect(form.get("redirect_uri")).toBe("http://localhost:3000/api/auth/idp/callback");
    expect(tokenRequest?.headers.authorization).toMatch(/^Basic /);
  });

  it("stores the provider tokens encrypted, never as plain text", async () => {
    fake.setAccount({ sub: "sub-enc", email: "enc@example.com", email_verified: true, name: "Enc" });
    const trip = await signInThroughProvider();
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    const issued = fake.issuedTokens.at(-1) as Record<string, string>;
    const [row] = await webContext()
      .db.select()
      .from(idpAccounts)
      .where(eq(idpAccounts.providerAccountId, "sub-enc"));

    const stored = JSON.stringify(row);
    for (const plain of [issued.access_token, issued.refresh_token, issued.id_token]) {
      expect(plain.length).toBeGreaterThan(20);
      expect(stored).not.toContain(plain);
    }
    expect(stored).not.toContain("ya29.");
    expect(stored).not.toContain("1//fake-refresh");
    const key = idpTokenKey(webContext().config);
    expect(decryptText(key, row.accessTokenEncrypted ?? "")).toBe(issued.access_token);
    expect(decryptText(key, row.refreshTokenEncrypted ?? "")).toBe(issued.refresh_token);
    expect(decryptText(key, row.idTokenEncrypted ?? "")).toBe(issued.id_token);
    expect(decodeJwt(issued.id_token).sub).toBe("sub-enc");
  });

  it("signs in through an existing link again, updating the tokens and keeping the refresh token when none comes", async () => {
    fake.setAccount({ sub: "sub-again", email: "again@example.com", email_verified: true, name: "Again" });
    await signInThroughProvider();
    const firstRefresh = (fake.issuedTokens.at(-1) as Record<string, string>).refresh_token;

    fake.setAccount({ sub: "sub-again", email: "again@example.com", email_verified: true, name: "Again" });
    fake.setTokenResponseOverrides({ refresh_token: undefined });
    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    const second = fake.issuedTokens.at(-1) as Record<string, string>;
    expect(second.refresh_token).toBeUndefined();

    const rows = await webContext()
      .db.select()
      .from(idpAccounts)
      .where(eq(idpAccounts.providerAccountId, "sub-again"));
    expect(rows).toHaveLength(1);
    const key = idpTokenKey(webContext().config);
    expect(decryptText(key, rows[0].accessTokenEncrypted ?? "")).toBe(second.access_token);
    expect(decryptText(key, rows[0].refreshTokenEncrypted ?? "")).toBe(firstRefresh);
    expect((await sessionUser(jar)).email).toBe("again@example.com");
    expect(
      await webContext().db.select().from(users).where(eq(users.email, "again@example.com")),
    ).toHaveLength(1);
  });

  it("links an existing verified account by email, keeping its password and sessions", async () => {
    const ctx = webContext();
    const existing = await createUser(ctx, {
      email: "linked@example.com",
      name: "Linked Before",
      passwordHash: "$2b$10$existinghashexistinghashexistinghashexistinghashexist",
      emailVerifiedAt: new Date("2026-01-01T00:00:00Z"),
    });
    const old = await createSession(ctx, existing.id);
    fake.setAccount({
      sub: "sub-linked",
      email: "LINKED@example.com",
      email_verified: true,
      name: "Other Name",
    });

    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    expect(await sessionUser(jar)).toEqual({
      id: existing.id,
      name: "Linked Before",
      email: "linked@example.com",
      isAdmin: false,
    });
    const after = await userByEmail("linked@example.com");
    expect(after.passwordHash).toBe(existing.passwordHash);
    expect(after.emailVerifiedAt?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    const tokens = (await ctx.db.select().from(sessions).where(eq(sessions.userId, existing.id))).map(
      (s) => s.tokenHash,
    );
    expect(tokens).toContain(sha256Hex(old.token));
    expect(tokens).toHaveLength(2);
    const [link] = await ctx.db
      .select()
      .from(idpAccounts)
      .where(eq(idpAccounts.providerAccountId, "sub-linked"));
    expect(link.userId).toBe(existing.id);
  });

  it("linking a never-verified account removes its password and its sessions, and marks the email verified", async () => {
    const ctx = webContext();
    const squatter = await createUser(ctx, {
      email: "unproven@example.com",
      passwordHash: "$2b$10$squattersquattersquattersquattersquattersquattersquat",
    });
    await createSession(ctx, squatter.id);
    await createSession(ctx, squatter.id);
    fake.setAccount({
      sub: "sub-unproven",
      email: "unproven@example.com",
      email_verified: true,
      name: "Owner",
    });

    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    const after = await userByEmail("unproven@example.com");
    expect(after.id).toBe(squatter.id);
    expect(after.passwordHash).toBeNull();
    expect(after.emailVerifiedAt?.toISOString()).toBe(clock.now().toISOString());
    const left = await ctx.db.select().from(sessions).where(eq(sessions.userId, squatter.id));
    expect(left.map((s) => s.tokenHash)).toEqual([sha256Hex(jar.get(SESSION_COOKIE) ?? "")]);
    expect((await sessionUser(jar)).id).toBe(squatter.id);
  });

  it("a new account from an unverified provider email is created without a verified email", async () => {
    fake.setAccount({ sub: "sub-unverified-new", email: "fresh@example.com", email_verified: false });
    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    const user = await userByEmail("fresh@example.com");
    expect(user.emailVerifiedAt).toBeNull();
    expect(user.name).toBe("fresh@example.com");
    expect((await sessionUser(jar)).id).toBe(user.id);
  });

  it("a callback URL cannot be used twice: the flow cookie is gone after the first", async () => {
    fake.setAccount({ sub: "sub-twice", email: "twice@example.com", email_verified: true });
    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar);
    expect(trip.location).toBe("http://localhost:3000/dashboard");
    const { GET } = await import("@/app/api/auth/idp/callback/route");
    const url = trip.callbackUrl as URL;
    const again = await call(GET, { path: url.pathname + url.search, jar });
    expect(again.headers.get("location")).toBe("http://localhost:3000/login?error=IdpAuthFailed");
  });
});
