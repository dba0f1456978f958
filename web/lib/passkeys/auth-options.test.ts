import { passkeyChallenges } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { POST as authOptionsRoute } from "@/app/api/passkey/auth/options/route";
import { createUser } from "../accounts/users";
import { call, useWebTestContext, webContext } from "../infra/testing";
import { PASSKEY_AUTH_OPTIONS_LIMIT } from "./service";
import { authOptions, challengeRow, newAuthenticator, userWithPasskey } from "./testing/flows";

const { clock, config } = useWebTestContext();

describe("POST /api/passkey/auth/options", () => {
  it("returns request options for the account's passkeys, matching the email case-insensitively", async () => {
    const { user, authenticator } = await userWithPasskey(config);
    const res = await call(authOptionsRoute, {
      method: "POST",
      json: { identifier: `  ${user.email.toUpperCase()} ` },
    });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.challenge).toMatch(/^0x[0-9a-f]{64}$/);
    expect(body.options).toEqual({
      rpId: "localhost",
      challenge: Buffer.from(body.challenge.slice(2), "hex").toString("base64url"),
      allowCredentials: [{ id: authenticator.id, type: "public-key", transports: ["hybrid", "internal"] }],
      userVerification: "required",
      timeout: 60000,
    });
    const row = await challengeRow(body.challenge);
    expect(row).toMatchObject({ userId: user.id, purpose: "authenticate" });
    expect(row.expiresAt.getTime()).toBe(clock.now().getTime() + config.PASSKEY_CHALLENGE_TTL_MS);
  });

  it("omits transports the authenticator did not report", async () => {
    const { user, authenticator } = await userWithPasskey(
      config,
      newAuthenticator(config, { transports: [] }),
    );
    const { options } = await authOptions(user.email);
    expect(options.allowCredentials).toEqual([{ id: authenticator.id, type: "public-key" }]);
  });

  const missing: [string, unknown, string][] = [
    ["missing", {}, "Identifier is required"],
    ["empty", { identifier: "  " }, "Identifier is required"],
    ["not a string", { identifier: ["a@example.com"] }, "Identifier must be a string"],
  ];
  for (const [name, json, message] of missing) {
    it(`400 when the identifier is ${name}`, async () => {
      const res = await call(authOptionsRoute, { method: "POST", json });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ error: message, code: "invalid_request", field: "identifier" });
    });
  }

  it("400 for bad JSON", async () => {
    const res = await call(authOptionsRoute, {
      method: "POST",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect((await res.json()).code).toBe("invalid_json");
  });

  it("404 when there is no such account, or it has no passkey; no challenge is stored", async () => {
    const bare = await createUser(webContext(), { email: "no-passkey@example.com" });
    for (const identifier of ["nobody@example.com", bare.email]) {
      const res = await call(authOptionsRoute, { method: "POST", json: { identifier } });
      expect(res.status).toBe(404);
      expect(await res.json()).toEqual({
        error: "no account with a passkey for this identifier",
        code: "not_found",
      });
    }
    expect(
      await webContext().db.select().from(passkeyChallenges).where(eq(passkeyChallenges.userId, bare.id)),
    ).toEqual([]);
  });

  it("429 per client IP beyond the limit, storing no challenge; other addresses and the next window go on", async () => {
    const { user } = await userWithPasskey(config);
    const ip = "192.0.2.77";
    const ask = (from = ip) =>
      call(authOptionsRoute, { method: "POST", json: { identifier: user.email }, ip: from });
    const challengesOfUser = async () =>
      (await webContext().db.select().from(passkeyChallenges).where(eq(passkeyChallenges.userId, user.id)))
        .length;
    const before = await challengesOfUser();
    for (let i = 0; i < PASSKEY_AUTH_OPTIONS_LIMIT.points; i++) expect((await ask()).status).toBe(200);
    expect(await challengesOfUser()).toBe(before + PASSKEY_AUTH_OPTIONS_LIMIT.points);

    const refused = await ask();
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: "too many passkey sign-in attempts; try again later",
      code: "rate_limited",
      retryAfterSeconds: PASSKEY_AUTH_OPTIONS_LIMIT.windowMs / 1000,
    });
    // Every request counts, a malformed one too, and none of them stores a challenge.
    const malformed = await call(authOptionsRoute, { method: "POST", json: {}, ip });
    expect(malformed.status).toBe(429);
    expect(await challengesOfUser()).toBe(before + PASSKEY_AUTH_OPTIONS_LIMIT.points);

    expect((await ask("192.0.2.78")).status).toBe(200);
    clock.advance(PASSKEY_AUTH_OPTIONS_LIMIT.windowMs);
    expect((await ask()).status).toBe(200);
  });
});
