import { apiKeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { HttpError } from "../http/errors";
import { makeRequest, signedInUser, useWebTestContext, webContext } from "../testing";
import { authenticateSessionOrApiKey, bearerToken } from "./authenticate";
import { createApiKey, generateApiKey, revokeApiKey } from "./service";

const { clock } = useWebTestContext();

async function newKey(userId: string) {
  return createApiKey(webContext(), userId, { name: "agent" });
}
async function lastUsedAt(id: string) {
  const [row] = await webContext().db.select().from(apiKeys).where(eq(apiKeys.id, id));
  return row.lastUsedAt;
}
async function expect401(request: Request) {
  const err = await authenticateSessionOrApiKey(webContext(), request).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HttpError);
  expect(err).toMatchObject({ status: 401, code: "unauthorized" });
}

describe("authenticateSessionOrApiKey", () => {
  it("a session cookie authenticates as its user, without touching any key", async () => {
    const { user, jar } = await signedInUser();
    const key = await newKey(user.id);
    const result = await authenticateSessionOrApiKey(webContext(), makeRequest({ jar }));
    expect(result).toEqual({ user: { id: user.id, email: user.email, name: user.name }, via: "session" });
    expect(await lastUsedAt(key.id)).toBeNull();
  });

  it("a valid bearer key authenticates as the key's owner and records last_used_at", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    clock.advance(60_000);
    const result = await authenticateSessionOrApiKey(
      webContext(),
      makeRequest({ headers: { authorization: `Bearer ${key.key}` } }),
    );
    expect(result).toEqual({
      user: { id: user.id, email: user.email, name: user.name },
      via: "apiKey",
      apiKeyId: key.id,
    });
    expect((await lastUsedAt(key.id))?.toISOString()).toBe(clock.now().toISOString());
  });

  it("the scheme is case-insensitive", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    const result = await authenticateSessionOrApiKey(
      webContext(),
      makeRequest({ headers: { authorization: `bearer ${key.key}` } }),
    );
    expect(result.user.id).toBe(user.id);
  });

  it("the session comes first: user A's session with user B's key is user A", async () => {
    const a = await signedInUser();
    const b = await signedInUser();
    const bKey = await newKey(b.user.id);
    const result = await authenticateSessionOrApiKey(
      webContext(),
      makeRequest({ jar: a.jar, headers: { authorization: `Bearer ${bKey.key}` } }),
    );
    expect(result).toEqual({
      user: { id: a.user.id, email: a.user.email, name: a.user.name },
      via: "session",
    });
    expect(await lastUsedAt(bKey.id)).toBeNull();
  });

  it("an invalid session cookie falls through to a valid bearer key", async () => {
    const { user, jar } = await signedInUser();
    const key = await newKey(user.id);
    jar.set("svc-session", "stale-token");
    const result = await authenticateSessionOrApiKey(
      webContext(),
      makeRequest({ jar, headers: { authorization: `Bearer ${key.key}` } }),
    );
    expect(result.via).toBe("apiKey");
    expect(result.user.id).toBe(user.id);
  });

  it("a revoked key is 401 and its last_used_at stays as it was", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    await revokeApiKey(webContext(), user.id, key.id);
    await expect401(makeRequest({ headers: { authorization: `Bearer ${key.key}` } }));
    expect(await lastUsedAt(key.id)).toBeNull();
  });

  it("garbage, unknown, truncated or non-bearer credentials are 401", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    const unknown = generateApiKey();
    for (const authorization of [
      "Bearer garbage",
      "Bearer svc_",
      `Bearer ${unknown}`,
      `Bearer ${key.key.slice(0, -1)}`,
      `Bearer ${key.key}x`,
      `Bearer ${key.prefix}`,
      `Basic ${Buffer.from(`x:${key.key}`).toString("base64")}`,
      key.key,
      "Bearer",
      "",
    ]) {
      await expect401(makeRequest({ headers: { authorization } }));
    }
    await expect401(makeRequest({}));
    expect(await lastUsedAt(key.id)).toBeNull();
  });
});

describe("bearerToken", () => {
  it("reads the token of a Bearer header only", () => {
    expect(bearerToken(makeRequest({ headers: { authorization: "Bearer abc" } }))).toBe("abc");
    expect(bearerToken(makeRequest({ headers: { authorization: "BEARER abc " } }))).toBe("abc");
    expect(bearerToken(makeRequest({ headers: { authorization: "Bearer a b" } }))).toBeUndefined();
    expect(bearerToken(makeRequest({ headers: { authorization: "Token abc" } }))).toBeUndefined();
    expect(bearerToken(makeRequest({}))).toBeUndefined();
  });
});
