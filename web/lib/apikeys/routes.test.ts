import { sha256Hex } from "@svc/common";
import { LEGACY_API_KEY_SCOPES } from "@svc/common/api-scopes";
import { apiKeys } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE, GET as GET_ONE } from "@/app/api/keys/[id]/route";
import { GET as LIST, POST } from "@/app/api/keys/route";
import {
  call,
  makeRequest,
  signedInUser,
  type TestRequest,
  useWebTestContext,
  webContext,
} from "../infra/testing";
import { SESSION_COOKIE } from "../sessions/service";
import { API_KEY_LIMIT, type CreatedApiKey } from "./service";

const { clock } = useWebTestContext();

type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];

const KEY_ID = /^key_[0-9a-z]{20}$/;

function withId(id: string) {
  return { params: Promise.resolve({ id }) };
}
function getOne(id: string, request: TestRequest = {}) {
  return GET_ONE(makeRequest({ path: `/api/keys/${id}`, ...request }), withId(id));
}
function deleteOne(id: string, request: TestRequest = {}) {
  return DELETE(makeRequest({ method: "DELETE", path: `/api/keys/${id}`, ...request }), withId(id));
}
async function createKey(
  jar: Jar,
  name = "ci",
  more: { scopes?: string[]; expiresInDays?: number | null } = {},
) {
  clock.advance(1000);
  const json = { name, scopes: ["files:read"], ...more };
  const res = await call(POST, { method: "POST", path: "/api/keys", json, jar });
  expect(res.status).toBe(201);
  return (await res.json()) as CreatedApiKey;
}
/** What list and get show of a created key that has not been used. */
function summaryOf(key: CreatedApiKey) {
  const { id, name, prefix, scopes, createdAt, expiresAt } = key;
  return { id, name, prefix, scopes, createdAt, expiresAt, expired: false, lastUsedAt: null };
}
async function rowsOf(userId: string) {
  return webContext().db.select().from(apiKeys).where(eq(apiKeys.userId, userId));
}
async function activeCount(userId: string) {
  return (await rowsOf(userId)).filter((r) => r.revokedAt === null).length;
}
async function totalRows() {
  const result = await webContext().db.execute<{ n: number }>(sql`select count(*)::int as n from api_keys`);
  return result.rows[0].n;
}

describe("POST /api/keys", () => {
  it("creates a key: 201 with exactly id, name, prefix, scopes, createdAt, expiresAt and the raw key", async () => {
    const { user, jar } = await signedInUser();
    const res = await call(POST, {
      method: "POST",
      path: "/api/keys",
      json: { name: "  deploy bot  ", scopes: ["agent:write", "jobs:read"] },
      jar,
    });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(Object.keys(body).sort()).toEqual([
      "createdAt",
      "expiresAt",
      "id",
      "key",
      "name",
      "prefix",
      "scopes",
    ]);
    expect(body).toEqual({
      id: expect.stringMatching(KEY_ID),
      name: "deploy bot",
      prefix: body.key.slice(0, 10),
      scopes: ["agent:write", "jobs:read"],
      createdAt: clock.now().toISOString(),
      expiresAt: null,
      key: expect.stringMatching(/^svc_[0-9A-Za-z]{40}$/),
    });
    expect(body.prefix).toMatch(/^svc_[0-9A-Za-z]{6}$/);

    const rows = await rowsOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({
      id: body.id,
      name: "deploy bot",
      prefix: body.key.slice(0, 10),
      keyHash: sha256Hex(body.key),
      scopes: ["agent:write", "jobs:read"],
      expiresAt: null,
      lastUsedAt: null,
      revokedAt: null,
    });
  });

  it("stores the scopes normalized: `all` alone, else each area once at its highest access", async () => {
    const { jar } = await signedInUser();
    const mixed = await createKey(jar, "mixed", {
      scopes: ["jobs:read", "files:read", "files:write", "agent:read", "jobs:read"],
    });
    expect(mixed.scopes).toEqual(["agent:read", "jobs:read", "files:write"]);
    const all = await createKey(jar, "all", { scopes: ["files:read", "all"] });
    expect(all.scopes).toEqual(["all"]);
  });

  it("expiresInDays sets expiresAt that many days after creation; null or absent never expires", async () => {
    const { jar } = await signedInUser();
    const month = await createKey(jar, "month", { expiresInDays: 30 });
    expect(month.expiresAt).toBe(new Date(clock.now().getTime() + 30 * 86_400_000).toISOString());
    expect((await createKey(jar, "forever", { expiresInDays: null })).expiresAt).toBeNull();
    expect((await createKey(jar, "also forever")).expiresAt).toBeNull();
  });

  it("a key made before scopes existed (the column's default) keeps what keys reached then", async () => {
    const { user } = await signedInUser();
    const [row] = await webContext()
      .db.insert(apiKeys)
      .values({
        id: "key_legacy000000000000",
        userId: user.id,
        name: "old",
        prefix: "svc_legacy",
        keyHash: "h",
      })
      .returning();
    expect(row.scopes).toEqual([...LEGACY_API_KEY_SCOPES]);
    expect(row.expiresAt).toBeNull();
  });

  it("lists an expired key as expired (by the server's clock) until it is deleted", async () => {
    const { jar } = await signedInUser();
    const day = await createKey(jar, "day", { expiresInDays: 1 });
    clock.advance(86_400_000);
    const listed = await (await call(LIST, { path: "/api/keys", jar })).json();
    expect(listed.keys).toEqual([{ ...summaryOf(day), expired: true }]);
  });

  it("stores only the SHA-256 and the 10-character prefix: no column holds the raw key", async () => {
    const { jar } = await signedInUser();
    const created = await createKey(jar, "storage check");
    const raw = await webContext().db.execute(sql`select * from api_keys where id = ${created.id}`);
    expect(raw.rows).toHaveLength(1);
    const row = raw.rows[0] as Record<string, unknown>;
    expect(row.key_hash).toBe(sha256Hex(created.key));
    expect(row.key_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.prefix).toBe(created.key.slice(0, 10));
    for (const [column, value] of Object.entries(row)) {
      const text = value instanceof Date ? value.toISOString() : String(value);
      expect(text.includes(created.key), `column ${column} holds the raw key`).toBe(false);
      // Nothing beyond the prefix is kept either (the random part after the first 10 characters).
      expect(text.includes(created.key.slice(10)), `column ${column} holds the key's secret part`).toBe(
        false,
      );
    }
  });

  it("issues a different key each time", async () => {
    const { jar } = await signedInUser();
    const a = await createKey(jar, "a");
    const b = await createKey(jar, "b");
    expect(a.key).not.toBe(b.key);
    expect(a.id).not.toBe(b.id);
  });

  it("accepts 10 active keys, refuses the 11th with 429 writing nothing, and allows one more after a delete", async () => {
    const { user, jar } = await signedInUser();
    const created = [];
    for (let i = 0; i < API_KEY_LIMIT; i++) created.push(await createKey(jar, `key ${i}`));
    expect(await activeCount(user.id)).toBe(10);

    const before = await totalRows();
    const res = await call(POST, {
      method: "POST",
      path: "/api/keys",
      json: { name: "eleventh", scopes: ["all"] },
      jar,
    });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual({
      error: "at most 10 API keys per account: delete one you no longer use (expired keys count too)",
      code: "api_key_limit",
    });
    expect(await totalRows()).toBe(before);

    expect((await deleteOne(created[3].id, { jar })).status).toBe(200);
    const again = await createKey(jar, "replacement");
    expect(again.name).toBe("replacement");
    expect(await activeCount(user.id)).toBe(10);
    expect((await rowsOf(user.id)).length).toBe(11);
  });

  it("the limit is per account: another user still creates keys", async () => {
    const a = await signedInUser();
    for (let i = 0; i < API_KEY_LIMIT; i++) await createKey(a.jar, `a${i}`);
    const b = await signedInUser();
    await createKey(b.jar, "b0");
    expect(await activeCount(b.user.id)).toBe(1);
  });

  it("holds the limit under concurrent creates", async () => {
    const { user, jar } = await signedInUser();
    for (let i = 0; i < 7; i++) await createKey(jar, `k${i}`);
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        call(POST, { method: "POST", path: "/api/keys", json: { name: `race ${i}`, scopes: ["all"] }, jar }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([201, 201, 201, 429, 429, 429]);
    expect(await activeCount(user.id)).toBe(10);
  });

  it("accepts a 64-character name", async () => {
    const { jar } = await signedInUser();
    const created = await createKey(jar, "n".repeat(64));
    expect(created.name).toBe("n".repeat(64));
  });

  const scopes = ["all"];
  const badInputs: Array<[string, TestRequest, RegExp]> = [
    ["a missing name", { json: { scopes } }, /^Key name is required$/],
    ["a number as name", { json: { name: 42, scopes } }, /^Key name must be a string$/],
    ["a null name", { json: { name: null, scopes } }, /^Key name must be a string$/],
    ["a blank name", { json: { name: "   ", scopes } }, /^Key name must not be empty$/],
    [
      "a 65-character name",
      { json: { name: "x".repeat(65), scopes } },
      /^Key name must be at most 64 characters$/,
    ],
    ["an unknown field", { json: { name: "ok", scopes, scope: "admin" } }, /scope/],
    ["no scopes", { json: { name: "ok" } }, /^Scope list is required$/],
    [
      "an empty scope list",
      { json: { name: "ok", scopes: [] } },
      /^Scope list must name at least one scope$/,
    ],
    [
      "a scope string",
      { json: { name: "ok", scopes: "all" } },
      /^Scope list must be a list such as \["files:read", "jobs:write"\]$/,
    ],
    [
      "an unknown scope",
      { json: { name: "ok", scopes: ["files:read", "account:write"] } },
      /^Scope list has an unknown scope "account:write"/,
    ],
    ["0 days", { json: { name: "ok", scopes, expiresInDays: 0 } }, /^Expires in must be at least 1 day$/],
    [
      "366 days",
      { json: { name: "ok", scopes, expiresInDays: 366 } },
      /^Expires in must be at most 365 days$/,
    ],
    [
      "a fraction of a day",
      { json: { name: "ok", scopes, expiresInDays: 1.5 } },
      /^Expires in must be a whole number of days$/,
    ],
    [
      "days as a string",
      { json: { name: "ok", scopes, expiresInDays: "30" } },
      /^Expires in must be a whole/,
    ],
    ["a JSON array", { json: [{ name: "ok" }] }, /JSON object/],
    [
      "bad JSON",
      { body: '{"name": "ok"', headers: { "content-type": "application/json" } },
      /not valid JSON/,
    ],
    [
      "a non-JSON content type",
      { body: "name=ok", headers: { "content-type": "application/x-www-form-urlencoded" } },
      /Content-Type/,
    ],
    ["no body at all", {}, /Content-Type/],
  ];
  for (const [label, request, message] of badInputs) {
    it(`answers 400 with a message for ${label}, writing nothing`, async () => {
      const { jar } = await signedInUser();
      const before = await totalRows();
      const res = await call(POST, { method: "POST", path: "/api/keys", jar, ...request });
      expect(res.status).toBe(400);
      const body = await res.json();
      const { field, ...rest } = body;
      expect(rest).toEqual({ error: expect.stringMatching(message), code: expect.any(String) });
      // An error about a field says which as `field` (its JSON path), for the form to show it beside it.
      const named = /^(Key name|Scope list|Expires in)\b/.exec(body.error)?.[1];
      const fieldOf: Record<string, string> = { "Key name": "name", "Expires in": "expiresInDays" };
      if (named === "Scope list") expect(field).toMatch(/^scopes(\.\d+)?$/);
      else expect(field).toBe(named ? fieldOf[named] : undefined);
      expect(await totalRows()).toBe(before);
    });
  }
});

describe("GET /api/keys", () => {
  it("lists only the user's active keys, newest first, without raw key or hash", async () => {
    const { jar } = await signedInUser();
    const other = await signedInUser();
    const first = await createKey(jar, "first");
    const second = await createKey(jar, "second");
    const third = await createKey(jar, "third");
    await createKey(other.jar, "someone else's");
    expect((await deleteOne(second.id, { jar })).status).toBe(200);

    const res = await call(LIST, { path: "/api/keys", jar });
    expect(res.status).toBe(200);
    const text = await res.text();
    const body = JSON.parse(text);
    expect(body).toEqual({ keys: [summaryOf(third), summaryOf(first)] });
    for (const key of [first, second, third]) {
      expect(text).not.toContain(key.key);
      expect(text).not.toContain(sha256Hex(key.key));
    }
  });

  it("is an empty list for a user without keys", async () => {
    const { jar } = await signedInUser();
    const res = await call(LIST, { path: "/api/keys", jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ keys: [] });
  });
});

describe("GET /api/keys/{id}", () => {
  it("returns the key's public fields only", async () => {
    const { jar } = await signedInUser();
    const created = await createKey(jar, "one");
    const res = await getOne(created.id, { jar });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(JSON.parse(text)).toEqual({ key: summaryOf(created) });
    expect(text).not.toContain(created.key);
    expect(text).not.toContain(sha256Hex(created.key));
  });

  it("404 for an unknown id and for a revoked key", async () => {
    const { jar } = await signedInUser();
    const unknown = await getOne("key_doesnotexist0000000", { jar });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: "API key not found", code: "not_found" });
    const created = await createKey(jar);
    await deleteOne(created.id, { jar });
    expect((await getOne(created.id, { jar })).status).toBe(404);
  });
});

describe("DELETE /api/keys/{id}", () => {
  it("revokes the key: {ok: true}, revoked_at set, gone from list and get, a second delete is 404", async () => {
    const { user, jar } = await signedInUser();
    const created = await createKey(jar);
    clock.advance(5000);
    const res = await deleteOne(created.id, { jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
    const [row] = await rowsOf(user.id);
    expect(row.revokedAt?.toISOString()).toBe(clock.now().toISOString());
    expect(await (await call(LIST, { path: "/api/keys", jar })).json()).toEqual({ keys: [] });
    const again = await deleteOne(created.id, { jar });
    expect(again.status).toBe(404);
    expect(await again.json()).toEqual({ error: "API key not found", code: "not_found" });
  });
});

describe("ownership", () => {
  it("another user's key is 404 for get and delete, and still works for its owner afterwards", async () => {
    const owner = await signedInUser();
    const intruder = await signedInUser();
    const created = await createKey(owner.jar, "mine");

    const peek = await getOne(created.id, { jar: intruder.jar });
    expect(peek.status).toBe(404);
    expect(await peek.json()).toEqual({ error: "API key not found", code: "not_found" });
    const drop = await deleteOne(created.id, { jar: intruder.jar });
    expect(drop.status).toBe(404);
    expect(await drop.json()).toEqual({ error: "API key not found", code: "not_found" });

    const [row] = await rowsOf(owner.user.id);
    expect(row.revokedAt).toBeNull();
    const mine = await getOne(created.id, { jar: owner.jar });
    expect(mine.status).toBe(200);
    expect((await mine.json()).key.id).toBe(created.id);
    expect((await deleteOne(created.id, { jar: owner.jar })).status).toBe(200);
  });
});

describe("401 without a session", () => {
  const unauthorized = { error: "sign in first", code: "unauthorized" };
  const keyRefused = {
    error: "API keys cannot be used for account, API key, passkey or password routes: sign in instead",
    code: "api_key_not_allowed",
  };

  it("for every route; an API key, even one with every scope, does not stand in for the session (403)", async () => {
    const { user, jar } = await signedInUser();
    const created = await createKey(jar, "everything", { scopes: ["all"] });
    const bearer = { authorization: `Bearer ${created.key}` };
    for (const [headers, status, answer] of [
      [{}, 401, unauthorized],
      [bearer, 403, keyRefused],
    ] as const) {
      const list = await call(LIST, { path: "/api/keys", headers });
      expect(list.status).toBe(status);
      expect(await list.json()).toEqual(answer);
      const json = { name: "x", scopes: ["all"] };
      const create = await call(POST, { method: "POST", path: "/api/keys", json, headers });
      expect(create.status).toBe(status);
      expect(await create.json()).toEqual(answer);
      const one = await getOne(created.id, { headers });
      expect(one.status).toBe(status);
      expect(await one.json()).toEqual(answer);
      const drop = await deleteOne(created.id, { headers });
      expect(drop.status).toBe(status);
      expect(await drop.json()).toEqual(answer);
    }
    const rows = await rowsOf(user.id);
    expect(rows).toHaveLength(1);
    expect(rows[0].revokedAt).toBeNull();
  });

  it("for an unknown session token", async () => {
    const { jar } = await signedInUser();
    jar.set(SESSION_COOKIE, "not-a-real-session-token");
    const res = await call(LIST, { path: "/api/keys", jar });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual(unauthorized);
  });
});
