import { sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { GET as sessionRoute } from "@/app/api/auth/session/route";
import { POST as authVerifyRoute } from "@/app/api/passkey/auth/verify/route";
import { BROWSER_UA, CookieJar, call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { FLAG_UP, type SoftwareAuthenticator } from "./testing/authenticator";
import {
  authOptions,
  challengeRow,
  newAuthenticator,
  passkeyRow,
  registerOptions,
  sessionsOf,
  userWithPasskey,
} from "./testing/flows";

const { clock, config } = useWebTestContext();

describe("POST /api/passkey/auth/verify", () => {
  it("signs in: {ok: true}, a session cookie that works, the signed counter and lastUsedAt stored", async () => {
    const { user, authenticator } = await userWithPasskey(config);
    const { options, challenge } = await authOptions(user.email);
    clock.advance(1000);
    const jar = new CookieJar();
    const res = await call(authVerifyRoute, {
      method: "POST",
      jar,
      ip: "198.51.100.4",
      json: { response: authenticator.authenticate(options), challenge },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(
      /^svc-session=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/,
    );

    const session = await call(sessionRoute, { jar });
    expect(await session.json()).toEqual({
      user: { id: user.id, name: user.name, email: user.email, isAdmin: false },
    });
    const row = await passkeyRow(authenticator.id);
    expect(row.signCount).toBe(1);
    expect(row.lastUsedAt?.toISOString()).toBe(clock.now().toISOString());
    const [stored] = await sessionsOf(user.id);
    expect(stored).toMatchObject({ ip: "198.51.100.4", userAgent: BROWSER_UA });
    expect(await challengeRow(challenge)).toBeUndefined();
  });

  it("allows an authenticator without a counter (0 stays 0)", async () => {
    const { user, authenticator } = await userWithPasskey(
      config,
      newAuthenticator(config, { counterStep: 0 }),
    );
    for (let i = 0; i < 2; i++) {
      const { options, challenge } = await authOptions(user.email);
      const json = { response: authenticator.authenticate(options), challenge };
      expect((await call(authVerifyRoute, { method: "POST", json })).status).toBe(200);
    }
    expect((await passkeyRow(authenticator.id)).signCount).toBe(0);
    expect(await sessionsOf(user.id)).toHaveLength(2);
  });

  describe("bad input: 400 with a message, nothing written and the challenge kept", () => {
    const cases: [string, (response: object, challenge: string) => unknown, string, string][] = [
      ["missing challenge", (response) => ({ response }), "Challenge is required", "challenge"],
      ["missing response", (_r, challenge) => ({ challenge }), "Response is required", "response"],
      [
        "response not an object",
        (_r, challenge) => ({ response: "x", challenge }),
        "Response must be an object",
        "response",
      ],
      [
        "response without id",
        (_r, challenge) => ({ response: { signCount: 5 }, challenge }),
        "Response ID is required",
        "response.id",
      ],
      [
        "response id not a string",
        (_r, challenge) => ({ response: { id: 5 }, challenge }),
        "Response ID must be a string",
        "response.id",
      ],
      [
        "malformed challenge",
        (response) => ({ response, challenge: "abc" }),
        "Challenge must be a 0x-prefixed hex string of 32 bytes",
        "challenge",
      ],
    ];
    for (const [name, body, message, field] of cases) {
      it(name, async () => {
        const { user, authenticator } = await userWithPasskey(config);
        const { options, challenge } = await authOptions(user.email);
        const json = body(authenticator.authenticate(options), challenge);
        const res = await call(authVerifyRoute, { method: "POST", json });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({ error: message, code: "invalid_request", field });
        expect(await challengeRow(challenge)).toBeDefined();
        expect(await sessionsOf(user.id)).toEqual([]);
        expect((await passkeyRow(authenticator.id)).signCount).toBe(0);
      });
    }

    it("non-JSON content type", async () => {
      const res = await call(authVerifyRoute, { method: "POST", body: "response=1" });
      expect(res.status).toBe(400);
      expect((await res.json()).code).toBe("bad_content_type");
    });
  });

  it("400 for an unknown, a registration, or an expired challenge", async () => {
    const { user, authenticator } = await userWithPasskey(config);
    const { jar } = await signedInUser();
    const registration = await registerOptions(jar);
    const unknown = await call(authVerifyRoute, {
      method: "POST",
      json: {
        response: authenticator.authenticate({ challenge: "AAAA" }),
        challenge: `0x${"00".repeat(32)}`,
      },
    });
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({
      error: "challenge is unknown or was already used",
      code: "invalid_challenge",
    });

    const wrongPurpose = await call(authVerifyRoute, {
      method: "POST",
      json: { response: authenticator.authenticate(registration.options), challenge: registration.challenge },
    });
    expect(wrongPurpose.status).toBe(400);
    expect((await wrongPurpose.json()).code).toBe("invalid_challenge");

    const { options, challenge } = await authOptions(user.email);
    clock.advance(config.PASSKEY_CHALLENGE_TTL_MS + 1);
    const expired = await call(authVerifyRoute, {
      method: "POST",
      json: { response: authenticator.authenticate(options), challenge },
    });
    expect(expired.status).toBe(400);
    expect(await expired.json()).toEqual({
      error: "challenge has expired; request new options",
      code: "challenge_expired",
    });
    expect(await sessionsOf(user.id)).toEqual([]);
  });

  it("400 when a challenge is replayed after a successful sign-in", async () => {
    const { user, authenticator } = await userWithPasskey(config);
    const { options, challenge } = await authOptions(user.email);
    const json = { response: authenticator.authenticate(options), challenge };
    expect((await call(authVerifyRoute, { method: "POST", json })).status).toBe(200);
    const replay = await call(authVerifyRoute, { method: "POST", json });
    expect(replay.status).toBe(400);
    expect((await replay.json()).code).toBe("invalid_challenge");
    expect(await sessionsOf(user.id)).toHaveLength(1);
  });

  it("404 for an unknown credential and for another user's credential", async () => {
    const { user } = await userWithPasskey(config);
    const other = await userWithPasskey(config);
    for (const stranger of [newAuthenticator(config), other.authenticator]) {
      const { options, challenge } = await authOptions(user.email);
      const res = await call(authVerifyRoute, {
        method: "POST",
        json: { response: stranger.authenticate(options), challenge },
      });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({ error: "passkey not recognized", code: "passkey_not_found" });
    }
    expect(await sessionsOf(user.id)).toEqual([]);
    expect(await sessionsOf(other.user.id)).toEqual([]);
    expect((await passkeyRow(other.authenticator.id)).signCount).toBe(0);
  });

  describe("401 when verification fails: no session, counter unchanged", () => {
    const failures: [string, (a: SoftwareAuthenticator, options: { challenge: string }) => object][] = [
      ["only {id, signCount}, no signed data", (a) => ({ id: a.id, signCount: 99 })],
      [
        "a signature by another key",
        (a, o) => ({ ...newAuthenticator(config).authenticate(o), id: a.id, rawId: a.id }),
      ],
      ["another origin", (a, o) => a.authenticate(o, { origin: "https://evil.example" })],
      ["another relying party", (a, o) => a.authenticate(o, { rpId: "evil.example" })],
      ["no user verification", (a, o) => a.authenticate(o, { flags: FLAG_UP })],
      ["another challenge signed", (a) => a.authenticate({ challenge: "AAAA" })],
      ["an attestation instead of an assertion", (a, o) => a.register(o)],
    ];
    for (const [name, responseFor] of failures) {
      it(name, async () => {
        const { user, authenticator } = await userWithPasskey(config);
        const { options, challenge } = await authOptions(user.email);
        const res = await call(authVerifyRoute, {
          method: "POST",
          json: { response: responseFor(authenticator, options), challenge },
        });
        expect(res.status).toBe(401);
        expect(await res.json()).toEqual({
          error: "passkey verification failed",
          code: "verification_failed",
        });
        expect(res.headers.get("set-cookie")).toBeNull();
        expect(await sessionsOf(user.id)).toEqual([]);
        const row = await passkeyRow(authenticator.id);
        expect(row.signCount).toBe(0);
        expect(row.lastUsedAt).toBeNull();
        expect(await challengeRow(challenge)).toBeUndefined();
      });
    }
  });

  it("lets only one of several concurrent assertions with the same signed counter through", async () => {
    const { user, authenticator } = await userWithPasskey(config);
    const ceremonies = [];
    for (let i = 0; i < 4; i++) ceremonies.push(await authOptions(user.email));
    // Open pool connections first, so the verifications really overlap instead of queueing on a connect.
    await Promise.all(ceremonies.map(() => webContext().db.execute(sql`select pg_sleep(0.05)`)));
    const results = await Promise.all(
      ceremonies.map(({ options, challenge }) =>
        call(authVerifyRoute, {
          method: "POST",
          json: { response: authenticator.authenticate(options, { counter: 1 }), challenge },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 401, 401, 401]);
    expect(await sessionsOf(user.id)).toHaveLength(1);
    expect((await passkeyRow(authenticator.id)).signCount).toBe(1);
  });

  it("401 when the signed counter does not increase, even if the client claims a higher signCount", async () => {
    const { user, authenticator } = await userWithPasskey(config);
    const first = await authOptions(user.email);
    const ok = await call(authVerifyRoute, {
      method: "POST",
      json: {
        response: authenticator.authenticate(first.options, { counter: 5 }),
        challenge: first.challenge,
      },
    });
    expect(ok.status).toBe(200);
    expect((await passkeyRow(authenticator.id)).signCount).toBe(5);

    for (const counter of [5, 4, 0]) {
      const { options, challenge } = await authOptions(user.email);
      const response = { ...authenticator.authenticate(options, { counter }), signCount: 6 };
      const res = await call(authVerifyRoute, { method: "POST", json: { response, challenge } });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ error: "passkey verification failed", code: "verification_failed" });
    }
    expect((await passkeyRow(authenticator.id)).signCount).toBe(5);
    expect(await sessionsOf(user.id)).toHaveLength(1);
  });
});
