import { buddies } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { DELETE, PATCH } from "@/app/api/buddies/[buddyId]/route";
import { GET as LIST, POST } from "@/app/api/buddies/route";
import { type CookieJar, makeRequest, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import type { BuddyView } from "./inputs";

const { clock } = useWebTestContext();
const db = () => webContext().db;
const params = (buddyId: string) => ({ params: Promise.resolve({ buddyId }) });

async function create(
  json: unknown,
  jar?: CookieJar,
  extra: { body?: string; headers?: Record<string, string> } = {},
) {
  const res = await POST(makeRequest({ method: "POST", path: "/api/buddies", json, jar, ...extra }));
  return { status: res.status, body: await res.json() };
}
async function hatch(jar: CookieJar, name = "Pip", type = "crab"): Promise<BuddyView> {
  const { status, body } = await create({ name, type }, jar);
  expect(status).toBe(201);
  return body.buddy;
}
async function act(id: string, json: unknown, jar?: CookieJar) {
  const res = await PATCH(
    makeRequest({ method: "PATCH", path: `/api/buddies/${id}`, json, jar }),
    params(id),
  );
  return { status: res.status, body: await res.json() };
}
/** Puts a buddy in a known state directly (the routes only move it step by step). */
async function setStats(id: string, stats: Partial<Record<"energy" | "happiness" | "xp" | "level", number>>) {
  await db().update(buddies).set(stats).where(eq(buddies.id, id));
}
async function rowOf(id: string) {
  const [row] = await db().select().from(buddies).where(eq(buddies.id, id));
  return row;
}
async function total() {
  const result = await db().execute<{ n: number }>(sql`select count(*)::int as n from buddies`);
  return result.rows[0].n;
}

describe("POST /api/buddies", () => {
  it("hatches a buddy: 201 {buddy} with energy and happiness 50, level 1, xp 0; the name trimmed", async () => {
    const { user, jar } = await signedInUser();
    const { status, body } = await create({ name: "  Sir Clicks  ", type: "robot" }, jar);
    expect(status).toBe(201);
    const now = clock.now().toISOString();
    expect(body).toEqual({
      buddy: {
        id: expect.stringMatching(/^bud_[0-9a-z]{20}$/),
        userId: user.id,
        name: "Sir Clicks",
        type: "robot",
        level: 1,
        xp: 0,
        energy: 50,
        happiness: 50,
        lastFed: now,
        lastPlayed: now,
        createdAt: now,
        updatedAt: now,
      },
    });
  });

  it.each([
    ["a missing name", { type: "crab" }, "Name is required"],
    ["a blank name", { name: "   ", type: "crab" }, "Name must not be empty"],
    ["a 31-character name", { name: "x".repeat(31), type: "crab" }, "Name must be at most 30 characters"],
    ["a numeric name", { name: 42, type: "crab" }, "Name must be a string"],
    [
      "an unknown type",
      { name: "Pip", type: "unicorn" },
      "Kind must be one of crab, robot, ghost, dragon, alien",
    ],
    ["a missing type", { name: "Pip" }, "Kind is required"],
    ["an unknown field", { name: "Pip", type: "crab", level: 99 }, "unknown field: level"],
  ])("%s → 400 naming the field, nothing written", async (_label, json, message) => {
    const { jar } = await signedInUser();
    const before = await total();
    const { status, body } = await create(json, jar);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
    expect(await total()).toBe(before);
  });

  it("a 30-character name after trimming is accepted", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar, `  ${"x".repeat(30)}  `);
    expect(buddy.name).toBe("x".repeat(30));
  });

  it("characters are code points: 30 emoji (60 UTF-16 units) are accepted and stored, 31 are 400", async () => {
    const { jar } = await signedInUser();
    const name = "🦀".repeat(30);
    const buddy = await hatch(jar, name);
    expect(buddy.name).toBe(name);
    expect((await rowOf(buddy.id)).name).toBe(name);
    const before = await total();
    const { status, body } = await create({ name: "🦀".repeat(31), type: "crab" }, jar);
    expect(status).toBe(400);
    expect(body.error).toContain("Name must be at most 30 characters");
    expect(await total()).toBe(before);
  });

  it("bad JSON or a non-JSON body → 400; an oversize body → 413; no session → 401; nothing written", async () => {
    const { jar } = await signedInUser();
    const before = await total();
    const json = { "content-type": "application/json" };
    expect((await create(undefined, jar, { body: "{bad", headers: json })).status).toBe(400);
    expect(
      (await create(undefined, jar, { body: "name=x", headers: { "content-type": "text/plain" } })).status,
    ).toBe(400);
    const huge = JSON.stringify({ name: "x".repeat(2 * 1024 * 1024), type: "crab" });
    expect((await create(undefined, jar, { body: huge, headers: json })).status).toBe(413);
    expect((await create({ name: "Pip", type: "crab" })).status).toBe(401);
    expect(await total()).toBe(before);
  });

  it("the 21st buddy is 400", async () => {
    const { user, jar } = await signedInUser();
    for (let i = 0; i < 20; i++) await hatch(jar, `Buddy ${i}`);
    const { status, body } = await create({ name: "One too many", type: "ghost" }, jar);
    expect(status).toBe(400);
    expect(body).toEqual({ error: "you can have at most 20 buddies", code: "buddy_limit" });
    expect(await db().$count(buddies, eq(buddies.userId, user.id))).toBe(20);
  });

  it("with 16 buddies, 5 racing creates make exactly 4 more: never more than 20", async () => {
    const { user, jar } = await signedInUser();
    for (let i = 0; i < 16; i++) await hatch(jar, `Buddy ${i}`);
    const results = await Promise.all(
      Array.from({ length: 5 }, (_, i) => create({ name: `Racer ${i}`, type: "alien" }, jar)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 201, 201, 400]);
    expect(await db().$count(buddies, eq(buddies.userId, user.id))).toBe(20);
  });
});

describe("GET /api/buddies", () => {
  it("lists the caller's buddies oldest first, nobody else's", async () => {
    const { jar } = await signedInUser();
    const first = await hatch(jar, "First");
    clock.advance(1000);
    const second = await hatch(jar, "Second", "dragon");
    await hatch((await signedInUser()).jar, "Stranger");
    const res = await LIST(makeRequest({ path: "/api/buddies", jar }));
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ buddies: [first, second] });
    expect((await LIST(makeRequest({ path: "/api/buddies" }))).status).toBe(401);
  });
});

describe("PATCH /api/buddies/{buddyId}", () => {
  it("feed: energy +20, happiness +10, xp +10, lastFed now", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    clock.advance(60_000);
    const { status, body } = await act(buddy.id, { action: "feed" }, jar);
    expect(status).toBe(200);
    const now = clock.now().toISOString();
    expect(body).toEqual({
      buddy: { ...buddy, energy: 70, happiness: 60, xp: 10, lastFed: now, updatedAt: now },
      leveledUp: false,
    });
  });

  it("feed caps energy and happiness at 100", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    await setStats(buddy.id, { energy: 95, happiness: 98 });
    const { body } = await act(buddy.id, { action: "feed" }, jar);
    expect(body.buddy).toMatchObject({ energy: 100, happiness: 100, xp: 10 });
  });

  it("play: happiness +15 (cap 100), xp +25, lastPlayed now; energy unchanged", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    clock.advance(60_000);
    const { body } = await act(buddy.id, { action: "play" }, jar);
    const now = clock.now().toISOString();
    expect(body).toEqual({
      buddy: { ...buddy, happiness: 65, xp: 25, lastPlayed: now, updatedAt: now },
      leveledUp: false,
    });
    await setStats(buddy.id, { happiness: 90 });
    expect((await act(buddy.id, { action: "play" }, jar)).body.buddy.happiness).toBe(100);
  });

  it("train: energy -30, happiness -10 with a floor at 0, xp +50", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    const { body } = await act(buddy.id, { action: "train" }, jar);
    expect(body.buddy).toMatchObject({ energy: 20, happiness: 40, xp: 50, level: 1 });
    expect(body.buddy.lastFed).toBe(buddy.lastFed);
    await setStats(buddy.id, { energy: 30, happiness: 5 });
    const again = await act(buddy.id, { action: "train" }, jar);
    expect(again.body.buddy).toMatchObject({ energy: 0, happiness: 0, xp: 100, level: 2 });
    expect(again.body.leveledUp).toBe(true);
  });

  it("train with energy below 30 is 400, and the buddy is unchanged", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    await setStats(buddy.id, { energy: 29 });
    const before = await rowOf(buddy.id);
    const { status, body } = await act(buddy.id, { action: "train" }, jar);
    expect(status).toBe(400);
    expect(body).toEqual({ error: "training needs at least 30 energy", code: "too_tired" });
    expect(await rowOf(buddy.id)).toEqual(before);
  });

  it("level = floor(xp / 100) + 1; leveledUp exactly when the level rose", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    await setStats(buddy.id, { xp: 80, level: 1 });
    const up = await act(buddy.id, { action: "play" }, jar);
    expect(up.body).toMatchObject({ buddy: { xp: 105, level: 2 }, leveledUp: true });
    const same = await act(buddy.id, { action: "feed" }, jar);
    expect(same.body).toMatchObject({ buddy: { xp: 115, level: 2 }, leveledUp: false });
    await setStats(buddy.id, { xp: 295, level: 3, energy: 100 });
    const train = await act(buddy.id, { action: "train" }, jar);
    expect(train.body).toMatchObject({ buddy: { xp: 345, level: 4 }, leveledUp: true });
  });

  it("rename sets the trimmed name and answers {buddy} only", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    const { status, body } = await act(buddy.id, { action: "rename", newName: "  Clawdia " }, jar);
    expect(status).toBe(200);
    expect(body).toEqual({ buddy: { ...buddy, name: "Clawdia" } });
  });

  it.each([
    ["feed", "x"],
    ["play", null],
    ["train", ""],
  ])("%s with a newName (%j) ignores it: the action applies, the name stays", async (action, newName) => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    const { status, body } = await act(buddy.id, { action, newName }, jar);
    expect(status).toBe(200);
    expect(body.buddy.name).toBe("Pip");
    expect(body.buddy.xp).toBe({ feed: 10, play: 25, train: 50 }[action]);
  });

  it("rename to 30 emoji is accepted; to 31 emoji is 400", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    const ok = await act(buddy.id, { action: "rename", newName: "👻".repeat(30) }, jar);
    expect(ok.status).toBe(200);
    expect(ok.body.buddy.name).toBe("👻".repeat(30));
    const refused = await act(buddy.id, { action: "rename", newName: "👻".repeat(31) }, jar);
    expect(refused.status).toBe(400);
    expect(refused.body.error).toContain("New name must be at most 30");
    expect((await rowOf(buddy.id)).name).toBe("👻".repeat(30));
  });

  it.each([
    ["an unknown action", { action: "pet" }, "Action must be feed, play, train or rename"],
    ["no action", {}, "Action must be feed, play, train or rename"],
    ["rename without newName", { action: "rename" }, "New name is required"],
    ["rename to blanks", { action: "rename", newName: "  " }, "New name must not be empty"],
    ["rename to 31 characters", { action: "rename", newName: "y".repeat(31) }, "New name must be at most 30"],
    ["feed with an extra field", { action: "feed", amount: 100 }, "unknown field: amount"],
    [
      "play with newName and an extra field",
      { action: "play", newName: "x", mood: 1 },
      "unknown field: mood",
    ],
    ["feed with a numeric newName", { action: "feed", newName: 7 }, "New name must be a string or null"],
  ])("%s → 400, the buddy unchanged", async (_label, json, message) => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    const before = await rowOf(buddy.id);
    const { status, body } = await act(buddy.id, json, jar);
    expect(status).toBe(400);
    expect(body.error).toContain(message);
    expect(await rowOf(buddy.id)).toEqual(before);
  });

  it("another user's buddy or an unknown id is 404, unchanged; no session is 401", async () => {
    const owner = await signedInUser();
    const buddy = await hatch(owner.jar);
    await setStats(buddy.id, { energy: 100 });
    const { jar } = await signedInUser();
    for (const action of [{ action: "feed" }, { action: "train" }, { action: "rename", newName: "Mine" }]) {
      expect(await act(buddy.id, action, jar)).toEqual({
        status: 404,
        body: { error: "buddy not found", code: "not_found" },
      });
      expect((await act("bud_unknown", action, jar)).status).toBe(404);
    }
    expect((await act(buddy.id, { action: "feed" })).status).toBe(401);
    expect(await rowOf(buddy.id)).toMatchObject({ name: "Pip", xp: 0, energy: 100 });
  });

  it("20 concurrent feeds add exactly 200 XP (each action one atomic UPDATE)", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => act(buddy.id, { action: "feed" }, jar)),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const row = await rowOf(buddy.id);
    expect(row).toMatchObject({ xp: 200, level: 3, energy: 100, happiness: 100 });
    // Exactly two of the twenty crossed a level boundary (100 and 200 XP).
    expect(results.filter((r) => r.body.leveledUp).length).toBe(2);
  });

  it("concurrent trains never take energy below 0: with 100 energy exactly 3 of 5 succeed", async () => {
    const { jar } = await signedInUser();
    const buddy = await hatch(jar);
    await setStats(buddy.id, { energy: 100, happiness: 100 });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => act(buddy.id, { action: "train" }, jar)),
    );
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 400, 400]);
    expect(await rowOf(buddy.id)).toMatchObject({ energy: 10, happiness: 70, xp: 150 });
  });
});

describe("DELETE /api/buddies/{buddyId}", () => {
  it("deletes the caller's buddy: {success: true}; again, or another user's, is 404", async () => {
    const owner = await signedInUser();
    const buddy = await hatch(owner.jar);
    const other = await signedInUser();
    const remove = (jar?: CookieJar) =>
      DELETE(makeRequest({ method: "DELETE", path: `/api/buddies/${buddy.id}`, jar }), params(buddy.id));
    expect((await remove(other.jar)).status).toBe(404);
    expect((await remove()).status).toBe(401);
    expect(await rowOf(buddy.id)).toBeDefined();
    const res = await remove(owner.jar);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ success: true });
    expect(await rowOf(buddy.id)).toBeUndefined();
    expect((await remove(owner.jar)).status).toBe(404);
  });
});
