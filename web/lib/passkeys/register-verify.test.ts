import { passkeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as registerVerifyRoute } from "@/app/api/passkey/register/verify/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { FLAG_AT, FLAG_UP } from "./testing/authenticator";
import {
  authOptions,
  challengeRow,
  newAuthenticator,
  passkeysOf,
  registerOptions,
  registerPasskey,
} from "./testing/flows";

const { clock, config } = useWebTestContext();

describe("POST /api/passkey/register/verify", () => {
  it("registers the credential and answers {ok: true}", async () => {
    const { user, jar } = await signedInUser();
    const authenticator = newAuthenticator(config);
    const { options, challenge } = await registerOptions(jar);
    const res = await call(registerVerifyRoute, {
      method: "POST",
      jar,
      json: { credential: authenticator.register(options), challenge },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });

    const rows = await passkeysOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: authenticator.id,
      userId: user.id,
      publicKey: authenticator.cosePublicKey().toString("base64url"),
      signCount: 0,
      transports: ["hybrid", "internal"],
      deviceType: "singleDevice",
      backedUp: false,
      label: "Passkey",
      lastUsedAt: null,
    });
    expect(rows[0].createdAt.toISOString()).toBe(clock.now().toISOString());
    expect(await challengeRow(challenge)).toBeUndefined();
  });

  it("stores the given label, trimmed", async () => {
    const { user, jar } = await signedInUser();
    await registerPasskey(jar, config, { label: "  Work laptop " });
    expect((await passkeysOf(user.id)).map((p) => p.label)).toEqual(["Work laptop"]);
  });

  it("401 without a session, and nothing is consumed", async () => {
    const { jar } = await signedInUser();
    const { options, challenge } = await registerOptions(jar);
    const credential = newAuthenticator(config).register(options);
    const res = await call(registerVerifyRoute, { method: "POST", json: { credential, challenge } });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
    expect(await challengeRow(challenge)).toBeDefined();
  });

  describe("bad input: 400 with a message, nothing written and the challenge kept", () => {
    const cases: [string, (credential: object, challenge: string) => object, string, string?][] = [
      ["missing credential", (_c, challenge) => ({ challenge }), "Credential is required", "credential"],
      ["missing challenge", (credential) => ({ credential }), "Challenge is required", "challenge"],
      [
        "credential not an object",
        (_c, challenge) => ({ credential: "abc", challenge }),
        "Credential must be an object",
        "credential",
      ],
      [
        "credential an array",
        (_c, challenge) => ({ credential: [], challenge }),
        "Credential must be an object",
        "credential",
      ],
      [
        "challenge not a string",
        (credential) => ({ credential, challenge: 42 }),
        "Challenge must be a string",
        "challenge",
      ],
      [
        "label too long",
        (credential, challenge) => ({ credential, challenge, label: "x".repeat(65) }),
        "Passkey name must be at most 64 characters",
        "label",
      ],
      [
        "label not a string",
        (credential, challenge) => ({ credential, challenge, label: 7 }),
        "Passkey name must be a string",
        "label",
      ],
      [
        "an unknown field",
        (credential, challenge) => ({ credential, challenge, admin: true }),
        "unknown field: admin",
      ],
    ];
    for (const [name, body, message, field] of cases) {
      it(name, async () => {
        const { user, jar } = await signedInUser();
        const { options, challenge } = await registerOptions(jar);
        const credential = newAuthenticator(config).register(options);
        const res = await call(registerVerifyRoute, {
          method: "POST",
          jar,
          json: body(credential, challenge),
        });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          error: message,
          code: "invalid_request",
          ...(field ? { field } : {}),
        });
        expect(await passkeysOf(user.id)).toEqual([]);
        expect(await challengeRow(challenge)).toBeDefined();
      });
    }

    it("bad JSON and a non-JSON content type", async () => {
      const { user, jar } = await signedInUser();
      const badJson = await call(registerVerifyRoute, {
        method: "POST",
        jar,
        body: "{credential:",
        headers: { "content-type": "application/json" },
      });
      expect(badJson.status).toBe(400);
      expect(await badJson.json()).toEqual({ error: "request body is not valid JSON", code: "invalid_json" });
      const text = await call(registerVerifyRoute, { method: "POST", jar, body: "credential=1" });
      expect(text.status).toBe(400);
      expect(await text.json()).toEqual({
        error: "Content-Type must be application/json",
        code: "bad_content_type",
      });
      expect(await passkeysOf(user.id)).toEqual([]);
    });
  });

  it("400 for a challenge that was never issued", async () => {
    const { user, jar } = await signedInUser();
    const { options } = await registerOptions(jar);
    const res = await call(registerVerifyRoute, {
      method: "POST",
      jar,
      json: { credential: newAuthenticator(config).register(options), challenge: `0x${"ab".repeat(32)}` },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "challenge is unknown or was already used",
      code: "invalid_challenge",
    });
    expect(await passkeysOf(user.id)).toEqual([]);
  });

  it("400 for an expired challenge, which is then gone", async () => {
    const { user, jar } = await signedInUser();
    const { options, challenge } = await registerOptions(jar);
    clock.advance(config.PASSKEY_CHALLENGE_TTL_MS + 1);
    const res = await call(registerVerifyRoute, {
      method: "POST",
      jar,
      json: { credential: newAuthenticator(config).register(options), challenge },
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "challenge has expired; request new options",
      code: "challenge_expired",
    });
    expect(await passkeysOf(user.id)).toEqual([]);
    expect(await challengeRow(challenge)).toBeUndefined();
  });

  it("400 for another user's challenge, which stays usable by its owner", async () => {
    const owner = await signedInUser();
    const other = await signedInUser();
    const { options, challenge } = await registerOptions(owner.jar);
    const authenticator = newAuthenticator(config);
    const res = await call(registerVerifyRoute, {
      method: "POST",
      jar: other.jar,
      json: { credential: authenticator.register(options), challenge },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_challenge");
    expect(await passkeysOf(other.user.id)).toEqual([]);

    const mine = await call(registerVerifyRoute, {
      method: "POST",
      jar: owner.jar,
      json: { credential: authenticator.register(options), challenge },
    });
    expect(mine.status).toBe(200);
    expect(await passkeysOf(owner.user.id)).toHaveLength(1);
  });

  it("400 for an authentication challenge", async () => {
    const { user, jar } = await signedInUser();
    await registerPasskey(jar, config);
    const { options, challenge } = await authOptions(user.email);
    const res = await call(registerVerifyRoute, {
      method: "POST",
      jar,
      json: { credential: newAuthenticator(config).register(options), challenge },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_challenge");
    expect(await passkeysOf(user.id)).toHaveLength(1);
  });

  it("400 when the challenge is replayed", async () => {
    const { user, jar } = await signedInUser();
    const { options, challenge } = await registerOptions(jar);
    const json = { credential: newAuthenticator(config).register(options), challenge };
    expect((await call(registerVerifyRoute, { method: "POST", jar, json })).status).toBe(200);
    const again = await call(registerVerifyRoute, { method: "POST", jar, json });
    expect(again.status).toBe(400);
    expect(await again.json()).toEqual({
      error: "challenge is unknown or was already used",
      code: "invalid_challenge",
    });
    expect(await passkeysOf(user.id)).toHaveLength(1);
  });

  it("400 when the credential is already registered, by this or another user", async () => {
    const first = await signedInUser();
    const authenticator = await registerPasskey(first.jar, config, { label: "first" });
    for (const { jar } of [first, await signedInUser()]) {
      const { options, challenge } = await registerOptions(jar);
      const res = await call(registerVerifyRoute, {
        method: "POST",
        jar,
        json: { credential: authenticator.register(options), challenge, label: "second" },
      });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: "this passkey is already registered",
        code: "already_registered",
      });
    }
    const rows = await webContext().db.select().from(passkeys).where(eq(passkeys.id, authenticator.id));
    expect(rows.map((r) => [r.userId, r.label])).toEqual([[first.user.id, "first"]]);
  });

  describe("400 when verification fails: no passkey written, the challenge used up", () => {
    const failures: [string, (options: { challenge: string }) => object][] = [
      ["another origin", (o) => newAuthenticator(config, { origin: "https://evil.example" }).register(o)],
      ["another relying party", (o) => newAuthenticator(config, { rpId: "evil.example" }).register(o)],
      ["no user verification", (o) => newAuthenticator(config).register(o, { flags: FLAG_UP | FLAG_AT })],
      ["another challenge signed", () => newAuthenticator(config).register({ challenge: "AAAA" })],
      ["an assertion instead of an attestation", (o) => newAuthenticator(config).authenticate(o)],
      ["a credential without data", () => ({ id: "abc", rawId: "abc", type: "public-key" })],
    ];
    for (const [name, credentialFor] of failures) {
      it(name, async () => {
        const { user, jar } = await signedInUser();
        const { options, challenge } = await registerOptions(jar);
        const json = { credential: credentialFor(options), challenge };
        const res = await call(registerVerifyRoute, { method: "POST", jar, json });
        expect(res.status).toBe(400);
        expect(await res.json()).toEqual({
          error: "passkey registration could not be verified",
          code: "verification_failed",
        });
        expect(await passkeysOf(user.id)).toEqual([]);
        expect(await challengeRow(challenge)).toBeUndefined();
      });
    }
  });
});
