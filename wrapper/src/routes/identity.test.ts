import { wrapperIdentityProof } from "@svc/common";
import express from "express";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { wrapperErrorMapper } from "../http/errors";
import { identityRoutes } from "./identity";

const PASSWORD = "the-wrapper-admin-password";
const LISTEN = { host: "127.0.0.1", port: 41234 };
const CHALLENGE = "ab".repeat(32);

function appWith(adminPassword: string | undefined) {
  const app = express();
  app.use(identityRoutes({ adminPassword, listen: LISTEN }));
  app.use(wrapperErrorMapper());
  return app;
}

describe("GET /api/identity", () => {
  it("answers the challenge with the proof of its admin password and the address it listens on", async () => {
    const res = await request(appWith(PASSWORD)).get(`/api/identity?challenge=${CHALLENGE}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      ok: true,
      ...LISTEN,
      proof: wrapperIdentityProof(PASSWORD, CHALLENGE, LISTEN),
    });
    // Another challenge, another password or another address give another proof: none can be replayed.
    expect(res.body.proof).not.toBe(wrapperIdentityProof(PASSWORD, "cd".repeat(32), LISTEN));
    expect(res.body.proof).not.toBe(wrapperIdentityProof("another password", CHALLENGE, LISTEN));
    expect(res.body.proof).not.toBe(wrapperIdentityProof(PASSWORD, CHALLENGE, { ...LISTEN, port: 41235 }));
  });

  it("400 for a missing, short, long or non-hex challenge", async () => {
    for (const query of [
      "",
      "?challenge=",
      `?challenge=${"a".repeat(31)}`,
      `?challenge=${"a".repeat(129)}`,
      `?challenge=${"g".repeat(64)}`,
      `?challenge=${"AB".repeat(32)}`,
    ]) {
      const res = await request(appWith(PASSWORD)).get(`/api/identity${query}`);
      expect([query, res.status, res.body]).toEqual([
        query,
        400,
        { ok: false, error: "challenge must be 32 to 128 lower-case hex digits" },
      ]);
    }
  });

  it("404 without an admin password: it has nothing to prove its identity with", async () => {
    const res = await request(appWith(undefined)).get(`/api/identity?challenge=${CHALLENGE}`);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({
      ok: false,
      error: "this wrapper has no admin password to prove its identity with",
    });
  });
});
