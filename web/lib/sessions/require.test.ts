/**
 * The auth decision of ./require.ts: the session cookie first, then a Bearer API key holding the route's
 * scope; what the handler then reads as its caller. Every route's declaration is ./route-auth.test.ts's.
 */
import type { ApiScope } from "@svc/common/api-scopes";
import { apiKeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bearerToken } from "../apikeys/authenticate";
import { createApiKey, generateApiKey, revokeApiKey } from "../apikeys/service";
import { HttpError } from "../infra/http/errors";
import { makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { authorizeRequest, callerOf, type RouteAuth, requireSession, requireSessionUser } from "./require";
import { SESSION_COOKIE } from "./service";

const { clock } = useWebTestContext();

const filesRead: RouteAuth = { area: "files", access: "read" };

async function newKey(userId: string, scopes: ApiScope[] = ["files:read"], expiresInDays?: number) {
  return createApiKey(webContext(), userId, { name: "agent", scopes, expiresInDays });
}
async function lastUsedAt(id: string) {
  const [row] = await webContext().db.select().from(apiKeys).where(eq(apiKeys.id, id));
  return row.lastUsedAt;
}
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

/** The refusal authorizeRequest throws, or undefined when it lets the request through. */
async function refusal(request: Request, auth: RouteAuth = filesRead) {
  return authorizeRequest(webContext(), request, auth).then(
    () => undefined,
    (e: unknown) => {
      expect(e).toBeInstanceOf(HttpError);
      const err = e as HttpError;
      return { status: err.status, code: err.code, ...err.extra };
    },
  );
}

describe("authorizeRequest", () => {
  it("a session cookie is its user, without touching any key", async () => {
    const { user, jar } = await signedInUser();
    const key = await newKey(user.id);
    const request = makeRequest({ jar });
    await authorizeRequest(webContext(), request, filesRead);
    expect(await callerOf(webContext(), request)).toMatchObject({ via: "session", user: { id: user.id } });
    expect(await lastUsedAt(key.id)).toBeNull();
  });

  it("a key with the scope is its owner (confirmed email and all) and records last_used_at", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id, ["files:write"]);
    clock.advance(60_000);
    const request = makeRequest({ headers: bearer(key.key) });
    await authorizeRequest(webContext(), request, filesRead);
    expect(await callerOf(webContext(), request)).toEqual({
      via: "apiKey",
      apiKeyId: key.id,
      scopes: ["files:write"],
      user: expect.objectContaining({ id: user.id, email: user.email, emailVerified: true, isAdmin: false }),
    });
    expect((await requireSessionUser(webContext(), request)).id).toBe(user.id);
    expect((await lastUsedAt(key.id))?.toISOString()).toBe(clock.now().toISOString());
  });

  it("the scheme is case-insensitive", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    const request = makeRequest({ headers: { authorization: `bearer ${key.key}` } });
    await authorizeRequest(webContext(), request, filesRead);
    expect((await callerOf(webContext(), request))?.user.id).toBe(user.id);
  });

  it("the session comes first: user A's session with user B's key is user A, B's key unused", async () => {
    const a = await signedInUser();
    const b = await signedInUser();
    const bKey = await newKey(b.user.id);
    const request = makeRequest({ jar: a.jar, headers: bearer(bKey.key) });
    await authorizeRequest(webContext(), request, "session");
    expect(await callerOf(webContext(), request)).toMatchObject({ via: "session", user: { id: a.user.id } });
    expect(await lastUsedAt(bKey.id)).toBeNull();
  });

  it("an invalid session cookie falls through to a valid key", async () => {
    const { user, jar } = await signedInUser();
    const key = await newKey(user.id);
    jar.set(SESSION_COOKIE, "stale-token");
    const request = makeRequest({ jar, headers: bearer(key.key) });
    await authorizeRequest(webContext(), request, filesRead);
    expect(await callerOf(webContext(), request)).toMatchObject({ via: "apiKey", user: { id: user.id } });
  });

  it("a key without the scope is 403 insufficient_scope naming it; write implies read, `all` everything", async () => {
    const { user } = await signedInUser();
    const reader = await newKey(user.id, ["files:read", "jobs:write"]);
    const request = () => makeRequest({ headers: bearer(reader.key) });
    expect(await refusal(request(), { area: "files", access: "write" })).toEqual({
      status: 403,
      code: "insufficient_scope",
      scope: "files:write",
    });
    expect(await refusal(request(), { area: "agent", access: "read" })).toMatchObject({
      scope: "agent:read",
    });
    expect(await refusal(request(), { area: "jobs", access: "read" })).toBeUndefined();
    const all = await newKey(user.id, ["all"]);
    expect(
      await refusal(makeRequest({ headers: bearer(all.key) }), { area: "context", access: "write" }),
    ).toBe(undefined);
  });

  it("an expired key is 401 api_key_expired and is not recorded as used; until then it works", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id, ["files:read"], 1);
    clock.advance(24 * 60 * 60 * 1000 - 1);
    expect(await refusal(makeRequest({ headers: bearer(key.key) }))).toBeUndefined();
    const used = await lastUsedAt(key.id);
    clock.advance(1);
    expect(await refusal(makeRequest({ headers: bearer(key.key) }))).toEqual({
      status: 401,
      code: "api_key_expired",
      expiresAt: clock.now().toISOString(),
    });
    expect(await lastUsedAt(key.id)).toEqual(used);
  });

  it("a session-only route: 401 without a session, 403 api_key_not_allowed with any key instead", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id, ["all"]);
    expect(await refusal(makeRequest({}), "session")).toEqual({ status: 401, code: "unauthorized" });
    expect(await refusal(makeRequest({ headers: bearer(key.key) }), "session")).toEqual({
      status: 403,
      code: "api_key_not_allowed",
    });
    expect(await lastUsedAt(key.id)).toBeNull();
  });

  it("requireSession refuses a key's caller: what must end with a session needs one", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    const request = makeRequest({ headers: bearer(key.key) });
    await authorizeRequest(webContext(), request, filesRead);
    await expect(requireSession(webContext(), request)).rejects.toMatchObject({
      code: "api_key_not_allowed",
    });
  });

  it("a deleted key, garbage, unknown, truncated or non-bearer credentials are 401; no key is recorded as used", async () => {
    const { user } = await signedInUser();
    const key = await newKey(user.id);
    const revoked = await newKey(user.id);
    await revokeApiKey(webContext(), user.id, revoked.id);
    const unknown = generateApiKey();
    for (const authorization of [
      `Bearer ${revoked.key}`,
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
      expect(await refusal(makeRequest({ headers: { authorization } })), authorization).toMatchObject({
        status: 401,
        code: "unauthorized",
      });
    }
    expect(await lastUsedAt(key.id)).toBeNull();
    expect(await lastUsedAt(revoked.id)).toBeNull();
  });

  it("an optional route lets an anonymous caller through, but not a bad key", async () => {
    const optional: RouteAuth = { area: "board", access: "read", optional: true };
    const anonymous = makeRequest({});
    await authorizeRequest(webContext(), anonymous, optional);
    expect(await callerOf(webContext(), anonymous)).toBeNull();
    await expect(requireSessionUser(webContext(), anonymous)).rejects.toMatchObject({ status: 401 });
    expect(await refusal(makeRequest({ headers: bearer(generateApiKey()) }), optional)).toMatchObject({
      status: 401,
    });
  });

  it("a public route recognises nobody, even with a session cookie", async () => {
    const { jar } = await signedInUser();
    const request = makeRequest({ jar });
    await authorizeRequest(webContext(), request, "public");
    expect(await callerOf(webContext(), request)).toBeNull();
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
