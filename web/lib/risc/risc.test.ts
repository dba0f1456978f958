import { sha256Hex } from "@svc/common";
import { startFakeOidcProvider } from "@svc/common/testing";
import { idpAccounts, processedSecurityEvents, sessions, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { SignJWT } from "jose";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { POST } from "@/app/api/security/risc/route";
import { signInThroughProvider } from "../idp/testing/sign-in";
import { CookieJar, call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { createSession, SESSION_COOKIE } from "../sessions/service";
import { riscSigningKeys, SIGNING_KEY_CACHE_MS, UNKNOWN_KID_REFETCH_MS } from "./keys";

const fake = await startFakeOidcProvider();
const { clock } = useWebTestContext({
  IDP_ISSUER: fake.url,
  IDP_CLIENT_ID: fake.clientId,
  IDP_CLIENT_SECRET: fake.clientSecret,
});
fake.setNow(() => clock.now());
afterAll(() => fake.close());
beforeEach(() => fake.reset());

const RISC = "https://schemas.openid.net/secevent/risc/event-type";
const OAUTH = "https://schemas.openid.net/secevent/oauth/event-type";

function deliver(token: string, contentType = "application/secevent+jwt") {
  return call(POST, {
    method: "POST",
    path: "/api/security/risc",
    body: token,
    headers: { "content-type": contentType },
  });
}

async function sessionHashes(userId: string): Promise<string[]> {
  const rows = await webContext().db.select().from(sessions).where(eq(sessions.userId, userId));
  return rows.map((r) => r.tokenHash).sort();
}

async function processedJtis(): Promise<string[]> {
  return (await webContext().db.select().from(processedSecurityEvents)).map((r) => r.jti);
}

/** A user who signed in through the provider (so an idp_accounts link holds their tokens) plus 2 sessions. */
async function providerUser(sub: string, email: string) {
  fake.setAccount({ sub, email, email_verified: true, name: sub });
  const jar = new CookieJar();
  const trip = await signInThroughProvider(jar);
  expect(trip.location).toBe("http://localhost:3000/dashboard");
  const [user] = await webContext().db.select().from(users).where(eq(users.email, email));
  await createSession(webContext(), user.id);
  expect(await sessionHashes(user.id)).toHaveLength(2);
  return { user, jar };
}

async function storedTokens(sub: string) {
  const [row] = await webContext()
    .db.select()
    .from(idpAccounts)
    .where(eq(idpAccounts.providerAccountId, sub));
  return [row.accessTokenEncrypted, row.refreshTokenEncrypted, row.idTokenEncrypted];
}

describe("POST /api/security/risc", () => {
  it("sessions-revoked by email deletes that user's sessions and stored provider tokens, and no one else's", async () => {
    const { user } = await providerUser("sub-revoke", "revoke@example.com");
    const bystander = await signedInUser("bystander@example.com");
    const token = await fake.signSecurityEvent({
      jti: "jti-revoke-1",
      events: {
        [`${RISC}/sessions-revoked`]: { subject: { subject_type: "email", email: "Revoke@Example.com" } },
      },
    });

    const res = await deliver(token);
    expect(res.status).toBe(202);
    expect(await res.json()).toEqual({ ok: true });
    expect(await sessionHashes(user.id)).toEqual([]);
    expect(await storedTokens("sub-revoke")).toEqual([null, null, null]);
    expect(await sessionHashes(bystander.user.id)).toEqual([sha256Hex(bystander.token)]);
    expect(await processedJtis()).toContain("jti-revoke-1");
  });

  it("tokens-revoked by the provider's subject id (iss-sub) revokes the linked user's sessions and tokens", async () => {
    const { user } = await providerUser("sub-tokens", "tokens@example.com");
    const token = await fake.signSecurityEvent({
      events: {
        [`${OAUTH}/tokens-revoked`]: {
          subject: { subject_type: "iss-sub", iss: fake.issuer, sub: "sub-tokens" },
        },
      },
    });
    const res = await deliver(token);
    expect(res.status).toBe(202);
    expect(await sessionHashes(user.id)).toEqual([]);
    expect(await storedTokens("sub-tokens")).toEqual([null, null, null]);
  });

  it("accepts the token as text/plain and as a JSON string", async () => {
    const a = await signedInUser("plain@example.com");
    const plain = await fake.signSecurityEvent({
      events: { [`${RISC}/sessions-revoked`]: { subject: { email: "plain@example.com" } } },
    });
    expect((await deliver(plain, "text/plain")).status).toBe(202);
    expect(await sessionHashes(a.user.id)).toEqual([]);

    const b = await signedInUser("json@example.com");
    const json = await fake.signSecurityEvent({
      events: { [`${RISC}/sessions-revoked`]: { subject: { email: "json@example.com" } } },
    });
    expect((await deliver(JSON.stringify(json), "application/json")).status).toBe(202);
    expect(await sessionHashes(b.user.id)).toEqual([]);
  });

  describe("rejects a token that fails validation with 400 and acts on nothing", () => {
    const revoke = (email: string) => ({ [`${RISC}/sessions-revoked`]: { subject: { email } } });
    const cases: Array<[string, (email: string) => Promise<string>, RegExp]> = [
      [
        "wrong issuer",
        (email) => fake.signSecurityEvent({ iss: "https://accounts.evil.example", events: revoke(email) }),
        /iss/,
      ],
      [
        "wrong audience",
        (email) => fake.signSecurityEvent({ aud: "another-client-id", events: revoke(email) }),
        /aud/,
      ],
      [
        "unknown kid",
        (email) => fake.signSecurityEvent({ events: revoke(email) }, { signWith: "rogue", kid: "rogue-key" }),
        /unknown key/,
      ],
      [
        "bad signature (published kid, other key)",
        (email) => fake.signSecurityEvent({ events: revoke(email) }, { signWith: "rogue" }),
        /signature/,
      ],
      [
        "not RS256",
        (email) =>
          new SignJWT({ iss: fake.issuer, aud: fake.clientId, jti: "hs", events: revoke(email) })
            .setProtectedHeader({ alg: "HS256", kid: fake.kid })
            .sign(new TextEncoder().encode("a-shared-secret-of-at-least-32-bytes!")),
        /RS256/,
      ],
      ["no jti", (email) => fake.signSecurityEvent({ jti: undefined, events: revoke(email) }), /jti/],
      ["no events", () => fake.signSecurityEvent({ events: {} }), /events/],
      ["not a JWT", async () => "this is not a token", /JWT/],
    ];

    cases.forEach(([name, makeToken, message], i) => {
      it(name, async () => {
        const victim = await signedInUser(`victim-${i}@example.com`);
        const before = await processedJtis();
        const res = await deliver(await makeToken(`victim-${i}@example.com`));
        expect(res.status).toBe(400);
        const body = await res.json();
        expect(body.code).toBe("invalid_token");
        expect(body.error).toMatch(message);
        expect(await sessionHashes(victim.user.id)).toEqual([sha256Hex(victim.token)]);
        expect(await processedJtis()).toEqual(before);
      });
    });

    it("the same token signed correctly is accepted (the cases above fail for their reason)", async () => {
      const victim = await signedInUser("victim-ok@example.com");
      expect(
        (await deliver(await fake.signSecurityEvent({ events: revoke("victim-ok@example.com") }))).status,
      ).toBe(202);
      expect(await sessionHashes(victim.user.id)).toEqual([]);
    });
  });

  it("acknowledges a replayed jti without acting again", async () => {
    const { user } = await providerUser("sub-replay", "replay@example.com");
    const token = await fake.signSecurityEvent({
      jti: "jti-replay",
      events: { [`${RISC}/sessions-revoked`]: { subject: { email: "replay@example.com" } } },
    });
    const first = await deliver(token);
    expect(first.status).toBe(202);
    expect(await first.json()).toEqual({ ok: true });
    expect(await sessionHashes(user.id)).toEqual([]);

    const later = await createSession(webContext(), user.id);
    const replay = await deliver(token);
    expect(replay.status).toBe(202);
    expect(await replay.json()).toEqual({ ok: true, duplicate: true });
    expect(await sessionHashes(user.id)).toEqual([sha256Hex(later.token)]);
    expect((await processedJtis()).filter((j) => j === "jti-replay")).toHaveLength(1);
  });

  it("account-disabled blocks identity-provider sign-in until account-enabled", async () => {
    const { user } = await providerUser("sub-disabled", "disabled@example.com");
    const disabled = await fake.signSecurityEvent({
      events: {
        [`${RISC}/account-disabled`]: {
          subject: { subject_type: "iss-sub", iss: fake.issuer, sub: "sub-disabled" },
          reason: "hijacking",
        },
      },
    });
    expect((await deliver(disabled)).status).toBe(202);
    expect(await sessionHashes(user.id)).toEqual([]);
    expect(await storedTokens("sub-disabled")).toEqual([null, null, null]);
    const [blocked] = await webContext().db.select().from(users).where(eq(users.id, user.id));
    expect(blocked.idpSignInBlockedAt?.toISOString()).toBe(clock.now().toISOString());

    fake.setAccount({ sub: "sub-disabled", email: "disabled@example.com", email_verified: true });
    const refused = await signInThroughProvider();
    expect(refused.location).toBe("http://localhost:3000/login?error=IdpAuthFailed");
    expect(await sessionHashes(user.id)).toEqual([]);

    const enabled = await fake.signSecurityEvent({
      events: {
        [`${RISC}/account-enabled`]: { subject: { subject_type: "email", email: "disabled@example.com" } },
      },
    });
    expect((await deliver(enabled)).status).toBe(202);
    const [unblocked] = await webContext().db.select().from(users).where(eq(users.id, user.id));
    expect(unblocked.idpSignInBlockedAt).toBeNull();

    fake.setAccount({ sub: "sub-disabled", email: "disabled@example.com", email_verified: true });
    const jar = new CookieJar();
    const allowed = await signInThroughProvider(jar);
    expect(allowed.location).toBe("http://localhost:3000/dashboard");
    expect(await sessionHashes(user.id)).toEqual([sha256Hex(jar.get(SESSION_COOKIE) ?? "")]);
  });

  it("verification, unknown events and unknown subjects are acknowledged and change nothing", async () => {
    const { user } = await providerUser("sub-quiet", "quiet@example.com");
    const before = await sessionHashes(user.id);
    for (const events of [
      { [`${RISC}/verification`]: { state: "abc" } },
      { [`${RISC}/account-credential-change-required`]: { subject: { email: "quiet@example.com" } } },
      { [`${RISC}/sessions-revoked`]: { subject: { email: "nobody@example.com" } } },
      {
        [`${RISC}/sessions-revoked`]: {
          subject: { subject_type: "iss-sub", iss: "https://other.example", sub: "sub-quiet" },
        },
      },
    ]) {
      const res = await deliver(await fake.signSecurityEvent({ events }));
      expect(res.status).toBe(202);
      expect(await res.json()).toEqual({ ok: true });
    }
    expect(await sessionHashes(user.id)).toEqual(before);
    expect(await storedTokens("sub-quiet")).not.toContain(null);
  });

  it("fetches the signing keys once and again only after 24 hours", async () => {
    riscSigningKeys.clear();
    const fetches = () => ({
      config: fake.requestCount("/.well-known/risc-configuration"),
      jwks: fake.requestCount("/jwks"),
    });
    const start = fetches();
    const event = () => fake.signSecurityEvent({ events: { [`${RISC}/verification`]: {} } });

    expect((await deliver(await event())).status).toBe(202);
    expect(fetches()).toEqual({ config: start.config + 1, jwks: start.jwks + 1 });

    clock.advance(SIGNING_KEY_CACHE_MS - 1000);
    expect((await deliver(await event())).status).toBe(202);
    expect(fetches()).toEqual({ config: start.config + 1, jwks: start.jwks + 1 });

    clock.advance(1000);
    expect((await deliver(await event())).status).toBe(202);
    expect(fetches()).toEqual({ config: start.config + 2, jwks: start.jwks + 2 });
  });

  it("an unknown kid refetches the keys at most once per 5 minutes of cache age", async () => {
    riscSigningKeys.clear();
    const jwks = () => fake.requestCount("/jwks");
    const event = () => fake.signSecurityEvent({ events: { [`${RISC}/verification`]: {} } });
    const rogue = () =>
      fake.signSecurityEvent(
        { events: { [`${RISC}/verification`]: {} } },
        { signWith: "rogue", kid: "new-kid" },
      );
    const start = jwks();
    expect((await deliver(await event())).status).toBe(202);
    expect((await deliver(await rogue())).status).toBe(400);
    expect((await deliver(await rogue())).status).toBe(400);
    expect(jwks()).toBe(start + 1);

    clock.advance(UNKNOWN_KID_REFETCH_MS);
    expect((await deliver(await rogue())).status).toBe(400);
    expect(jwks()).toBe(start + 2);
    expect((await deliver(await rogue())).status).toBe(400);
    expect(jwks()).toBe(start + 2);
  });

  it("answers 502 when the provider's keys cannot be fetched, so the provider delivers again", async () => {
    riscSigningKeys.clear();
    const token = await fake.signSecurityEvent({
      jti: "jti-unreachable",
      events: { [`${RISC}/verification`]: {} },
    });
    fake.setDown(true);
    const res = await deliver(token);
    expect(res.status).toBe(502);
    expect((await res.json()).code).toBe("signing_keys_unavailable");
    expect(await processedJtis()).not.toContain("jti-unreachable");

    fake.setDown(false);
    expect((await deliver(token)).status).toBe(202);
    expect(await processedJtis()).toContain("jti-unreachable");
  });
});
