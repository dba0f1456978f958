import { describe, expect, it } from "vitest";
import { POST as registerOptionsRoute } from "@/app/api/passkey/register/options/route";
import { call, signedInUser, useWebTestContext } from "../infra/testing";
import { challengeRow, registerOptions, registerPasskey } from "./testing/flows";

const { clock, config } = useWebTestContext();

describe("POST /api/passkey/register/options", () => {
  it("401 without a session", async () => {
    const res = await call(registerOptionsRoute, { method: "POST" });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({ error: "sign in first", code: "unauthorized" });
  });

  it("returns creation options and the 0x challenge, stored for this user for the TTL", async () => {
    const { user, jar } = await signedInUser();
    const res = await call(registerOptionsRoute, { method: "POST", jar });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual(["challenge", "options"]);
    expect(body.challenge).toMatch(/^0x[0-9a-f]{64}$/);
    expect(body.options).toMatchObject({
      challenge: Buffer.from(body.challenge.slice(2), "hex").toString("base64url"),
      rp: { name: config.WEBAUTHN_RP_NAME, id: "localhost" },
      user: { id: Buffer.from(user.id).toString("base64url"), name: user.email, displayName: user.name },
      attestation: "none",
      timeout: 60000,
      excludeCredentials: [],
      authenticatorSelection: { residentKey: "preferred", userVerification: "required" },
    });
    expect(body.options.pubKeyCredParams).toContainEqual({ alg: -7, type: "public-key" });

    const row = await challengeRow(body.challenge);
    expect(row).toMatchObject({ userId: user.id, purpose: "register" });
    expect(row.expiresAt.getTime()).toBe(clock.now().getTime() + 5 * 60 * 1000);
  });

  it("excludes the credentials the user already has", async () => {
    const { jar } = await signedInUser();
    const authenticator = await registerPasskey(jar, config);
    const { options } = await registerOptions(jar);
    expect(options.excludeCredentials).toEqual([
      { id: authenticator.id, type: "public-key", transports: ["hybrid", "internal"] },
    ]);
  });
});
