import { startFakeOidcProvider } from "@svc/common/testing";
import { idpAccounts, sessions, users } from "@svc/db/schema";
import { count, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeEach, describe, expect, it } from "vitest";
import { GET as callbackRoute } from "@/app/api/auth/idp/callback/route";
import { GET as startRoute } from "@/app/api/auth/idp/route";
import { createUser } from "../accounts/users";
import { overrideWebContext } from "../infra/context";
import { CookieJar, call, useWebTestContext, webContext } from "../infra/testing";
import { createSession, SESSION_COOKIE } from "../sessions/service";
import { FLOW_COOKIE } from "./flow";
import { signInThroughProvider } from "./testing/sign-in";

const fake = await startFakeOidcProvider();
const { clock, config } = useWebTestContext({
  IDP_ISSUER: fake.url,
  IDP_CLIENT_ID: fake.clientId,
  IDP_CLIENT_SECRET: fake.clientSecret,
});
fake.setNow(() => clock.now());
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const loginError = (code: string) => `http://localhost:3000/login?error=${code}`;

async function tableCounts() {
  const db = webContext().db;
  const [u] = await db.select({ n: count() }).from(users);
  const [s] = await db.select({ n: count() }).from(sessions);
  const [l] = await db.select({ n: count() }).from(idpAccounts);
  return { users: u.n, sessions: s.n, links: l.n };
}

/** Runs a sign-in that must fail with `code`: no session cookie, flow cookie cleared, nothing written. */
async function expectRefused(code: string, options: Parameters<typeof signInThroughProvider>[1] = {}) {
  const before = await tableCounts();
  const jar = new CookieJar();
  const trip = await signInThroughProvider(jar, options);
  expect(trip.response.status).toBe(302);
  expect(trip.location).toBe(loginError(code));
  expect(jar.get(SESSION_COOKIE)).toBeUndefined();
  expect(jar.get(FLOW_COOKIE)).toBeUndefined();
  expect(await tableCounts()).toEqual(before);
  return trip;
}

describe("identity-provider sign-in errors", () => {
  it("AccessDenied when the user cancels at the provider, without a token exchange", async () => {
    fake.setAuthorizeError("access_denied");
    const tokenCalls = fake.requestCount("/token");
    await expectRefused("AccessDenied");
    expect(fake.requestCount("/token")).toBe(tokenCalls);
  });

  it("IdpAuthFailed for any other provider error, without a token exchange", async () => {
    fake.setAuthorizeError("server_error");
    const tokenCalls = fake.requestCount("/token");
    await expectRefused("IdpAuthFailed");
    expect(fake.requestCount("/token")).toBe(tokenCalls);
  });

  it("IdpAuthFailed for a state that does not match the flow cookie", async () => {
    const tokenCalls = fake.requestCount("/token");
    await expectRefused("IdpAuthFailed", {
      editCallback: (url) => url.searchParams.set("state", "forged-state"),
    });
    await expectRefused("IdpAuthFailed", { editCallback: (url) => url.searchParams.delete("state") });
    expect(fake.requestCount("/token")).toBe(tokenCalls);
  });

  it("IdpAuthFailed without the flow cookie (e.g. a callback started in another browser)", async () => {
    const jar = new CookieJar();
    const trip = await signInThroughProvider(jar, { beforeCallback: () => jar.set(FLOW_COOKIE, "") });
    expect(trip.location).toBe(loginError("IdpAuthFailed"));

    const other = new CookieJar();
    other.set(FLOW_COOKIE, "v1.forged.cookie.value");
    const url = trip.callbackUrl as URL;
    const res = await call(callbackRoute, { path: url.pathname + url.search, jar: other });
    expect(res.headers.get("location")).toBe(loginError("IdpAuthFailed"));
  });

  it("IdpAuthFailed when the flow is older than 10 minutes", async () => {
    await expectRefused("IdpAuthFailed", { beforeCallback: () => clock.advance(10 * 60 * 1000 + 1) });
  });

  it("IdpAuthFailed when an existing account's email is not verified by the provider; the account is untouched", async () => {
    const ctx = webContext();
    const owner = await createUser(ctx, {
      email: "owner@example.com",
      passwordHash: "$2b$10$ownerownerownerownerownerownerownerownerownerownerow",
    });
    await createSession(ctx, owner.id);
    fake.setAccount({
      sub: "sub-claimer",
      email: "owner@example.com",
      email_verified: false,
      name: "Claimer",
    });
    await expectRefused("IdpAuthFailed");
    const [after] = await ctx.db.select().from(users).where(eq(users.id, owner.id));
    expect(after.passwordHash).toBe(owner.passwordHash);
    expect(after.emailVerifiedAt).toBeNull();
    expect(await ctx.db.select().from(sessions).where(eq(sessions.userId, owner.id))).toHaveLength(1);
  });

  it("IdpAuthFailed when identity-provider sign-in is blocked for the account", async () => {
    const ctx = webContext();
    const blocked = await createUser(ctx, { email: "blocked@example.com", emailVerifiedAt: clock.now() });
    await ctx.db.update(users).set({ idpSignInBlockedAt: clock.now() }).where(eq(users.id, blocked.id));
    fake.setAccount({ sub: "sub-blocked", email: "blocked@example.com", email_verified: true });
    await expectRefused("IdpAuthFailed");
  });

  describe("when the provider is not configured", () => {
    afterEach(() => overrideWebContext({ config }));

    for (const missing of ["IDP_CLIENT_ID", "IDP_ISSUER"] as const) {
      it(`IdpNotConfigured from both routes without ${missing}`, async () => {
        const jar = new CookieJar();
        const trip = await signInThroughProvider(jar, {
          beforeCallback: () => overrideWebContext({ config: { ...config, [missing]: undefined } }),
        });
        expect(trip.location).toBe(loginError("IdpNotConfigured"));
        expect(jar.get(SESSION_COOKIE)).toBeUndefined();

        const start = await call(startRoute, { path: "/api/auth/idp" });
        expect(start.status).toBe(302);
        expect(start.headers.get("location")).toBe(loginError("IdpNotConfigured"));
        expect(start.headers.getSetCookie()).toEqual([]);
      });
    }
  });

  it("IdpTokenFailed when the token endpoint answers an error", async () => {
    fake.setTokenFailure({ status: 500 });
    await expectRefused("IdpTokenFailed");
    fake.setTokenFailure({ status: 400, body: { error: "invalid_grant" } });
    await expectRefused("IdpTokenFailed");
  });

  it("IdpTokenFailed when the token endpoint drops the connection", async () => {
    fake.setTokenFailure("network");
    await expectRefused("IdpTokenFailed");
  });

  it("IdpTokenFailed when the token response has no id_token", async () => {
    fake.setTokenResponseOverrides({ id_token: undefined });
    await expectRefused("IdpTokenFailed");
  });

  it("IdpNoEmail when the id_token carries no email", async () => {
    fake.setAccount({ sub: "sub-no-email", email_verified: true, name: "Nobody" });
    await expectRefused("IdpNoEmail");
  });

  it("IdpAuthError when the id_token is signed by a key the provider does not publish", async () => {
    fake.setAccount({ sub: "sub-rogue", email: "rogue@example.com", email_verified: true });
    fake.tamperIdToken({ signWith: "rogue" });
    await expectRefused("IdpAuthError");
    fake.tamperIdToken({ signWith: "rogue", kid: "rogue-key" });
    await expectRefused("IdpAuthError");
  });

  it("IdpAuthError when the id_token nonce is not the one of this flow", async () => {
    fake.setAccount({ sub: "sub-nonce", email: "nonce@example.com", email_verified: true });
    fake.tamperIdToken({ nonce: "someone-elses-nonce" });
    await expectRefused("IdpAuthError");
    fake.tamperIdToken({ claims: { nonce: undefined } });
    await expectRefused("IdpAuthError");
  });

  it("IdpAuthError for an id_token of another issuer or audience, or an expired one", async () => {
    fake.setAccount({ sub: "sub-claims", email: "claims@example.com", email_verified: true });
    fake.tamperIdToken({ claims: { iss: "https://evil.example.com" } });
    await expectRefused("IdpAuthError");
    fake.tamperIdToken({ claims: { aud: "another-client" } });
    await expectRefused("IdpAuthError");
    const past = Math.floor(clock.now().getTime() / 1000) - 7200;
    fake.tamperIdToken({ claims: { iat: past, exp: past + 3600 } });
    await expectRefused("IdpAuthError");
  });

  it("the same account signs in once nothing is tampered with (the cases above fail for their reason)", async () => {
    fake.setAccount({ sub: "sub-claims", email: "claims@example.com", email_verified: true });
    const trip = await signInThroughProvider();
    expect(trip.location).toBe("http://localhost:3000/dashboard");
  });
});
