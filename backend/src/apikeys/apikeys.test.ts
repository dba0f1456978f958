import { randomBytes } from "node:crypto";
import { newId, sha256Hex } from "@svc/common";
import { apiKeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import request from "supertest";
import { describe, expect, it } from "vitest";
import { createUser, headersFor, INTERNAL_API_KEY, testApp, testDatabase } from "../testing";

const database = testDatabase();
const app = testApp();
const auth = headersFor("internal");

function rawKey(): string {
  const alphabet = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
  return `svc_${[...randomBytes(40)].map((b) => alphabet[b % 62]).join("")}`;
}

/** A user with one API key inserted the way the web stores it (hash and prefix only). */
async function userWithKey(options: { revoked?: boolean } = {}) {
  const { id: userId } = await createUser({ name: "agent owner" });
  const key = rawKey();
  const keyId = newId("key");
  await database.db.insert(apiKeys).values({
    id: keyId,
    userId,
    name: "agent",
    prefix: key.slice(0, 10),
    keyHash: sha256Hex(key),
    revokedAt: options.revoked ? new Date("2026-01-01T00:00:00Z") : null,
  });
  return { userId, key, keyId };
}

async function keyRow(keyId: string) {
  const [row] = await database.db.select().from(apiKeys).where(eq(apiKeys.id, keyId));
  return row;
}

function validate(body: unknown, headers: Record<string, string> = auth) {
  return request(app)
    .post("/api/validate-key")
    .set(headers)
    .send(body as object);
}

describe("POST /api/validate-key", () => {
  it("an active key is valid with its user id, and last_used_at is recorded", async () => {
    const { userId, key, keyId } = await userWithKey();
    expect((await keyRow(keyId)).lastUsedAt).toBeNull();
    const before = Date.now();
    const res = await validate({ key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, userId });
    const used = (await keyRow(keyId)).lastUsedAt;
    expect(used).toBeInstanceOf(Date);
    expect(used?.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(used?.getTime()).toBeLessThanOrEqual(Date.now() + 1000);
  });

  it("tells two users' keys apart", async () => {
    const a = await userWithKey();
    const b = await userWithKey();
    expect((await validate({ key: a.key })).body).toEqual({ valid: true, userId: a.userId });
    expect((await validate({ key: b.key })).body).toEqual({ valid: true, userId: b.userId });
  });

  it("a revoked key is not valid and its last_used_at is left alone", async () => {
    const { key, keyId } = await userWithKey({ revoked: true });
    const res = await validate({ key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: false });
    expect((await keyRow(keyId)).lastUsedAt).toBeNull();
  });

  it("unknown and malformed keys are not valid (200)", async () => {
    const { key, keyId } = await userWithKey();
    for (const candidate of [
      rawKey(),
      key.slice(0, 10),
      key.slice(0, -1),
      `${key}x`,
      key.toUpperCase() === key ? key.toLowerCase() : key.toUpperCase(),
      sha256Hex(key),
      "garbage",
      "",
    ]) {
      const res = await validate({ key: candidate });
      expect(res.status, candidate).toBe(200);
      expect(res.body, candidate).toEqual({ valid: false });
    }
    expect((await keyRow(keyId)).lastUsedAt).toBeNull();
  });

  it("400 with a message for a missing or non-string key, or a body that is not a JSON object", async () => {
    const cases: Array<[unknown, string]> = [
      [{}, "key: is required"],
      [{ key: 123 }, "key: must be a string"],
      [{ key: null }, "key: must be a string"],
      [{ key: ["svc_x"] }, "key: must be a string"],
    ];
    for (const [body, message] of cases) {
      const res = await validate(body);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: "invalid_request", message });
    }
    const unknownField = await validate({ key: "svc_x", userId: "usr_1" });
    expect(unknownField.status).toBe(400);
    expect(unknownField.body).toEqual({
      error: "invalid_request",
      message: expect.stringContaining("userId"),
    });

    const form = await request(app)
      .post("/api/validate-key")
      .set(auth)
      .set("content-type", "application/x-www-form-urlencoded")
      .send("key=svc_abc");
    expect(form.status).toBe(400);
    expect(form.body).toEqual({ error: "invalid_request", message: "request body must be a JSON object" });

    const badJson = await request(app)
      .post("/api/validate-key")
      .set(auth)
      .set("content-type", "application/json")
      .send('{"key": ');
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ error: "invalid_json", message: "request body is not valid JSON" });
  });
});

describe("POST /api/validate-key internal API key", () => {
  it("401 without an Authorization header or without the Bearer prefix", async () => {
    const { key, keyId } = await userWithKey();
    const headerSets: Array<Record<string, string>> = [
      {},
      { authorization: INTERNAL_API_KEY },
      { authorization: `Basic ${INTERNAL_API_KEY}` },
      { authorization: "Bearer " },
    ];
    for (const headers of headerSets) {
      const res = await validate({ key }, headers);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ error: "unauthorized", message: expect.stringContaining("Bearer") });
    }
    expect((await keyRow(keyId)).lastUsedAt).toBeNull();
  });

  it("the Bearer scheme is case-insensitive", async () => {
    const { userId, key } = await userWithKey();
    const res = await validate({ key }, { authorization: `bearer ${INTERNAL_API_KEY}` });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ valid: true, userId });
  });

  it("403 when the bearer token does not match", async () => {
    const { key, keyId } = await userWithKey();
    for (const token of [
      "wrong",
      `${INTERNAL_API_KEY}x`,
      INTERNAL_API_KEY.slice(0, -1),
      ` ${INTERNAL_API_KEY}`,
      key,
    ]) {
      const res = await validate({ key }, { authorization: `Bearer ${token}` });
      expect(res.status, token).toBe(403);
      expect(res.body).toEqual({ error: "forbidden", message: "invalid internal API key" });
    }
    expect((await keyRow(keyId)).lastUsedAt).toBeNull();
  });

  it("500 when INTERNAL_API_KEY is unset or empty", async () => {
    const { key } = await userWithKey();
    for (const env of [{}, { INTERNAL_API_KEY: "" }]) {
      const res = await request(testApp({ env: { INTERNAL_API_KEY: undefined, ...env } }))
        .post("/api/validate-key")
        .set(auth)
        .send({ key });
      expect(res.status).toBe(500);
      expect(res.body).toEqual({
        error: "internal_key_unset",
        message: "INTERNAL_API_KEY is not configured",
      });
    }
  });

  it("protects only its own route: other paths still get the JSON 404", async () => {
    const res = await request(app).get("/api/validate-key/other");
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: "not_found", message: "no route for GET /api/validate-key/other" });
  });
});
