/**
 * Streaming-service identity against a loopback radio API and market data API: linking and unlinking the
 * radio wallet, the DJ stats shape with ETH tips converted at the market ETH price, an unknown DJ, a failing
 * service, and a hanging service answered with nulls and `error` once the one 6 s budget is spent.
 */
import { startFakeMarketData, startFakeRadioApi } from "@svc/common/testing";
import { marketDataCache, radioWallets } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET as DJ_STATS } from "@/app/api/radio/dj-stats/route";
import { GET, PATCH } from "@/app/api/user/radio-wallet/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { captureProcessOutput } from "../wallets/testing";
import { LOOKUP_FAILED, TIPS_UNPRICED } from "./service";

const radio = await startFakeRadioApi();
const market = await startFakeMarketData();
useWebTestContext({ RADIO_API_URL: radio.url, MARKET_DATA_URL: market.url, LOG_LEVEL: "warn" });
const output = captureProcessOutput();
afterAll(async () => {
  await radio.close();
  await market.close();
});
beforeEach(async () => {
  radio.hang(false);
  radio.failWith(null);
  market.failWith(null);
  await webContext().db.delete(marketDataCache);
});

const WALLET = "0xAbCdEf0123456789aBcDeF0123456789abcdef01";
type Jar = Awaited<ReturnType<typeof signedInUser>>["jar"];
const patch = (jar: Jar | undefined, json: unknown) =>
  call(PATCH, { method: "PATCH", path: "/api/user/radio-wallet", json, jar });

describe("GET/PATCH /api/user/radio-wallet", () => {
  it("links a wallet lower-case, reads it back, and unlinks with null or an empty string", async () => {
    const { user, jar } = await signedInUser();
    expect(await (await call(GET, { path: "/api/user/radio-wallet", jar })).json()).toEqual({ wallet: null });
    const linked = await patch(jar, { wallet: WALLET });
    expect(linked.status).toBe(200);
    expect(await linked.json()).toEqual({ ok: true, wallet: WALLET.toLowerCase() });
    expect(await (await call(GET, { path: "/api/user/radio-wallet", jar })).json()).toEqual({
      wallet: WALLET.toLowerCase(),
    });
    for (const empty of [null, ""]) {
      await patch(jar, { wallet: WALLET });
      expect(await (await patch(jar, { wallet: empty })).json()).toEqual({ ok: true, wallet: null });
      expect(
        await webContext().db.select().from(radioWallets).where(eq(radioWallets.userId, user.id)),
      ).toEqual([]);
    }
  });

  it("400 for a missing or invalid wallet, nothing written; 401 without a session", async () => {
    const { user, jar } = await signedInUser();
    const cases: [unknown, string][] = [
      [{}, "Radio wallet is required"],
      [{ wallet: "0x123" }, "Radio wallet must be 0x followed by 40 hex characters, null or empty"],
      [
        { wallet: `0x${"g".repeat(40)}` },
        "Radio wallet must be 0x followed by 40 hex characters, null or empty",
      ],
      [{ wallet: 42 }, "Radio wallet must be 0x followed by 40 hex characters, null or empty"],
    ];
    for (const [json, message] of cases) {
      const res = await patch(jar, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((await res.json()).error).toBe(message);
    }
    expect(await webContext().db.select().from(radioWallets).where(eq(radioWallets.userId, user.id))).toEqual(
      [],
    );
    expect((await call(GET, { path: "/api/user/radio-wallet" })).status).toBe(401);
    expect((await patch(undefined, { wallet: WALLET })).status).toBe(401);
  });
});

describe("GET /api/radio/dj-stats", () => {
  it("no linked wallet: {linked: false}; 401 without a session", async () => {
    const { jar } = await signedInUser();
    expect(await (await call(DJ_STATS, { path: "/api/radio/dj-stats", jar })).json()).toEqual({
      linked: false,
    });
    expect((await call(DJ_STATS, { path: "/api/radio/dj-stats" })).status).toBe(401);
  });

  it("the DJ's profile and stats, tips in ETH converted at the market ETH price to 2 decimals", async () => {
    radio.djs.set(WALLET.toLowerCase(), {
      name: "DJ Nova",
      slug: "dj-nova",
      avatar: "https://cdn.example/nova.png",
      followers: 1234,
      genres: ["house", "techno"],
      stats: { totalShows: 42, totalListeners: 9001, totalTipsEth: 0.123456 },
    });
    radio.live.add("dj-nova");
    const { jar } = await signedInUser();
    await patch(jar, { wallet: WALLET });
    const before = radio.requests.length;
    const res = await call(DJ_STATS, { path: "/api/radio/dj-stats", jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      linked: true,
      wallet: WALLET.toLowerCase(),
      dj: {
        name: "DJ Nova",
        slug: "dj-nova",
        avatar: "https://cdn.example/nova.png",
        followers: 1234,
        genres: ["house", "techno"],
      },
      // 0.123456 ETH x 3000 USD = 370.368 → 370.37
      stats: { totalShows: 42, totalListeners: 9001, totalTipsUsdc: 370.37, isLive: true },
    });
    const sent = radio.requests.slice(before);
    expect(sent[0]).toMatchObject({ path: "/api/djs/me" });
    expect(sent[0].headers["x-wallet-address"]).toBe(WALLET.toLowerCase());
    expect(sent.map((r) => r.path).sort()).toEqual([
      "/api/djs/dj-nova/stats",
      "/api/djs/me",
      "/api/streams/live",
    ]);
    radio.live.delete("dj-nova");
    const offline = await (await call(DJ_STATS, { path: "/api/radio/dj-stats", jar })).json();
    expect(offline.stats.isLive).toBe(false);
  });

  it("a DJ the service does not know: dj and stats null, no error", async () => {
    const { jar } = await signedInUser();
    await patch(jar, { wallet: "0x9999999999999999999999999999999999999999" });
    expect(await (await call(DJ_STATS, { path: "/api/radio/dj-stats", jar })).json()).toEqual({
      linked: true,
      wallet: "0x9999999999999999999999999999999999999999",
      dj: null,
      stats: null,
    });
  });

  it("a failing service or market data: nulls and the reason in error", async () => {
    const { jar } = await signedInUser();
    await patch(jar, { wallet: WALLET });
    radio.failWith(503);
    expect(await (await call(DJ_STATS, { path: "/api/radio/dj-stats", jar })).json()).toEqual({
      linked: true,
      wallet: WALLET.toLowerCase(),
      dj: null,
      stats: null,
      error: "the radio service answered HTTP 503",
    });
    radio.failWith(null);
    market.failWith(500);
    const body = await (await call(DJ_STATS, { path: "/api/radio/dj-stats", jar })).json();
    expect(body).toMatchObject({ dj: null, stats: null });
    expect(body.error).toBe(TIPS_UNPRICED);
    expect(TIPS_UNPRICED).toBe("the tips could not be priced: the ETH price is not available right now");
    expect(output.text()).toContain("the market data provider answered HTTP 500");
  });

  it("a database failure in the ETH price lookup: a fixed sentence in error, the detail only in the log", async () => {
    radio.djs.set(WALLET.toLowerCase(), {
      name: "DJ Nova",
      slug: "dj-nova",
      avatar: null,
      followers: 0,
      genres: [],
      stats: { totalShows: 1, totalListeners: 1, totalTipsEth: 1 },
    });
    const { jar } = await signedInUser();
    await patch(jar, { wallet: WALLET });
    const db = webContext().db;
    // A real database error where the fresh ETH quote is stored.
    await db.execute(sql`create or replace function fail_market_cache() returns trigger language plpgsql as
      $$ begin raise exception 'internal detail: tablespace pg_secret_7 is full'; end $$`);
    await db.execute(sql`create trigger fail_market_cache before insert on market_data_cache
      for each row execute function fail_market_cache()`);
    try {
      const res = await call(DJ_STATS, { path: "/api/radio/dj-stats", jar });
      expect(res.status).toBe(200);
      const body = await res.json();
      expect(body).toEqual({
        linked: true,
        wallet: WALLET.toLowerCase(),
        dj: null,
        stats: null,
        error: LOOKUP_FAILED,
      });
      expect(LOOKUP_FAILED).toBe("the DJ stats could not be read because of an internal error");
      expect(JSON.stringify(body)).not.toMatch(/pg_secret_7|market_data_cache|insert/);
      expect(output.text()).toContain("pg_secret_7");
    } finally {
      await db.execute(sql`drop trigger fail_market_cache on market_data_cache`);
      await db.execute(sql`drop function fail_market_cache()`);
    }
  });

  it("a hanging service: nulls and error once the 6 s budget is spent", async () => {
    const { jar } = await signedInUser();
    await patch(jar, { wallet: WALLET });
    radio.hang(true);
    const res = await call(DJ_STATS, { path: "/api/radio/dj-stats", jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      linked: true,
      wallet: WALLET.toLowerCase(),
      dj: null,
      stats: null,
      error: "the radio service did not answer within 6 s",
    });
  });
});
