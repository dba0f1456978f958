import { createLogger, signUserContext, type UserContext, userContextHeaders } from "@svc/common";
import express from "express";
import request from "supertest";
import { beforeAll, describe, expect, it } from "vitest";
import { errorMapper } from "../http/errors";
import { createUser, headersFor, INTERNAL_API_KEY, HMAC_SECRET as SECRET, testApp } from "../testing";
import {
  userContextOf,
  userContextSecret,
  type VerifyUserContextOptions,
  verifyUserContext,
} from "./user-context";

const logger = createLogger("backend-test", "silent");

const alice: UserContext = { userId: "usr_alice", userEmail: "alice@example.com", userRole: "user" };

/** The middleware alone, answering with the context it verified. */
function probeApp(options: VerifyUserContextOptions) {
  const app = express();
  app.get("/probe", verifyUserContext(options), (_req, res) => {
    res.json(userContextOf(res));
  });
  app.use(errorMapper(logger));
  return app;
}

const signatureRequired = { error: "SIGNATURE_REQUIRED", message: "x-user-signature header is required" };
const invalidSignature = {
  error: "INVALID_SIGNATURE",
  message: "x-user-signature does not match the user context",
};

describe("verifyUserContext, required", () => {
  const app = probeApp({ secret: SECRET, required: true });

  it("a valid signature passes and the context is what was signed", async () => {
    const res = await request(app).get("/probe").set(userContextHeaders(SECRET, alice));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(alice);
  });

  it("401 SIGNATURE_REQUIRED without headers, without a signature, or with an empty one", async () => {
    const { "x-user-signature": _signature, ...unsigned } = userContextHeaders(SECRET, alice);
    for (const headers of [{}, unsigned, { ...unsigned, "x-user-signature": "" }]) {
      const res = await request(app).get("/probe").set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(signatureRequired);
    }
  });

  it("401 INVALID_SIGNATURE when the role, the email or the id was changed after signing", async () => {
    const signed = userContextHeaders(SECRET, alice);
    const tampered = [
      { ...signed, "x-user-role": "admin" },
      { ...signed, "x-user-email": "boss@example.com" },
      { ...signed, "x-user-email": "ALICE@example.com" },
      { ...signed, "x-user-id": "usr_bob" },
    ];
    for (const headers of tampered) {
      const res = await request(app).get("/probe").set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(invalidSignature);
    }
  });

  it("401 INVALID_SIGNATURE for another secret, a truncated or a garbage signature", async () => {
    const signed = userContextHeaders(SECRET, alice);
    for (const signature of [
      signUserContext("another-secret-0123456789", alice),
      signed["x-user-signature"].slice(0, -1),
      `${signed["x-user-signature"]}0`,
      "not-hex",
    ]) {
      const res = await request(app)
        .get("/probe")
        .set({ ...signed, "x-user-signature": signature });
      expect(res.status).toBe(401);
      expect(res.body).toEqual(invalidSignature);
    }
  });

  it("absent headers take their defaults (anonymous, empty email, user), which the signature covers", async () => {
    const defaults = { userId: "anonymous", userEmail: "", userRole: "user" };
    const res = await request(app).get("/probe").set("x-user-signature", signUserContext(SECRET, defaults));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(defaults);

    const onlyEmail = await request(app)
      .get("/probe")
      .set({
        "x-user-email": "alice@example.com",
        "x-user-signature": signUserContext(SECRET, { ...defaults, userEmail: "alice@example.com" }),
      });
    expect(onlyEmail.status).toBe(200);
    expect(onlyEmail.body).toEqual({ ...defaults, userEmail: "alice@example.com" });
  });
});

describe("verifyUserContext, optional", () => {
  const app = probeApp({ secret: SECRET, required: false });

  it("a call without any x-user-* header passes with the anonymous context", async () => {
    const res = await request(app).get("/probe");
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ userId: "anonymous", userEmail: "", userRole: "user" });
  });

  it("any x-user-* header makes the signature required", async () => {
    for (const headers of [
      { "x-user-id": "usr_alice" },
      { "x-user-email": "alice@example.com" },
      { "x-user-role": "admin" },
      { "x-user-plan": "pro" },
    ]) {
      const res = await request(app).get("/probe").set(headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual(signatureRequired);
    }
    const tampered = await request(app)
      .get("/probe")
      .set({ ...userContextHeaders(SECRET, alice), "x-user-role": "admin" });
    expect(tampered.status).toBe(401);
    expect(tampered.body).toEqual(invalidSignature);
  });

  it("signed headers pass", async () => {
    const res = await request(app).get("/probe").set(userContextHeaders(SECRET, alice));
    expect(res.status).toBe(200);
    expect(res.body).toEqual(alice);
  });
});

describe("verifyUserContext without any secret", () => {
  it("takes the headers as given, signed or not, in both modes", async () => {
    for (const required of [true, false]) {
      for (const secret of [undefined, ""]) {
        const app = probeApp({ secret, required });
        const res = await request(app)
          .get("/probe")
          .set({ "x-user-id": "usr_x", "x-user-email": "x@example.com", "x-user-role": "admin" });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({ userId: "usr_x", userEmail: "x@example.com", userRole: "admin" });
        const garbage = await request(app).get("/probe").set("x-user-signature", "garbage");
        expect(garbage.status).toBe(200);
        expect(garbage.body).toEqual({ userId: "anonymous", userEmail: "", userRole: "user" });
      }
    }
  });
});

describe("user-context secret: HMAC_SECRET, else INTERNAL_API_KEY", () => {
  it("resolves the key", () => {
    expect(userContextSecret({ HMAC_SECRET: "h", INTERNAL_API_KEY: "k" })).toBe("h");
    expect(userContextSecret({ INTERNAL_API_KEY: "k" })).toBe("k");
    expect(userContextSecret({ HMAC_SECRET: "", INTERNAL_API_KEY: "k" })).toBe("k");
    expect(userContextSecret({})).toBeUndefined();
  });

  const admin: UserContext = { userId: "usr_admin", userEmail: "admin@example.com", userRole: "admin" };
  beforeAll(async () => {
    await createUser({ id: admin.userId, email: admin.userEmail, name: "admin" });
  });

  function adminList(config: Record<string, string>, secret: string) {
    const app = testApp({ env: { HMAC_SECRET: undefined, ADMIN_EMAILS: admin.userEmail, ...config } });
    return request(app)
      .get("/api/admin/users")
      .set({ ...headersFor("internal"), ...userContextHeaders(secret, admin) });
  }

  it("without HMAC_SECRET a route verifies signatures made with INTERNAL_API_KEY", async () => {
    const ok = await adminList({ INTERNAL_API_KEY }, INTERNAL_API_KEY);
    expect(ok.status).toBe(200);
    expect(ok.body.users.map((u: { id: string }) => u.id)).toEqual([admin.userId]);
    const wrong = await adminList({ INTERNAL_API_KEY }, SECRET);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(invalidSignature);
  });

  it("with HMAC_SECRET set, a signature made with INTERNAL_API_KEY is refused", async () => {
    const ok = await adminList({ INTERNAL_API_KEY, HMAC_SECRET: SECRET }, SECRET);
    expect(ok.status).toBe(200);
    const wrong = await adminList({ INTERNAL_API_KEY, HMAC_SECRET: SECRET }, INTERNAL_API_KEY);
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual(invalidSignature);
  });
});
