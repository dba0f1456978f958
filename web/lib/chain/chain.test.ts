/**
 * The chain routes against a loopback Solana JSON-RPC and a loopback market data API: every endpoint's
 * shape and errors, the 60 s price cache (injected clock, one upstream call for 20 concurrent misses), the
 * 20-token cap and ordering, the tier table's edges, and the RPC URL checks through the outbound guard.
 */
import { freePort, ManualClock } from "@svc/common";
import { SPL_TOKEN_PROGRAM, startFakeMarketData, startFakeSolanaRpc } from "@svc/common/testing";
import { marketDataCache, userRpcConfigs } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import { GET as PRICE } from "@/app/api/l1/price/route";
import { GET as RPC_GET, POST as RPC_POST } from "@/app/api/l1/rpc-config/route";
import { GET as VERIFY } from "@/app/api/l1/verify/route";
import { GET as WALLET } from "@/app/api/l1/wallet/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { maskUrlCredentials } from "./mask-url";
import { refreshUsdQuote } from "./price";

const rpc = await startFakeSolanaRpc();
const market = await startFakeMarketData();
const MINT = "9V4m199eohMgy7bB7MbXhDacUur6NzpgZVrhfux5pump";
// The platform's RPC as providers hand them out: the operator's key in the userinfo, the path and the query.
const OPERATOR_KEY = "0perAtorKey7f3e9a1b2c4d";
const DEFAULT_RPC = `http://operator:hunter2secret@${new URL(rpc.url).host}/v2/${OPERATOR_KEY}?api-key=${OPERATOR_KEY}&cluster=mainnet`;
const MASKED_DEFAULT_RPC = `http://***:***@${new URL(rpc.url).host}/v2/***?api-key=***&cluster=mainnet`;
const { clock } = useWebTestContext({
  L1_RPC_URL: DEFAULT_RPC,
  MARKET_DATA_URL: market.url,
  OUTBOUND_ALLOW_HOSTS: "localhost",
});
afterAll(async () => {
  await rpc.close();
  await market.close();
});
beforeEach(() => {
  rpc.failWith(null);
  rpc.hang(false);
  market.failWith(null);
});

const ADDRESS = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
const USDC = "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v";
const BONK = "DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263";
const WSOL = "So11111111111111111111111111111111111111112";

describe("GET /api/l1/price", () => {
  beforeEach(async () => {
    await webContext().db.delete(marketDataCache);
  });

  it("answers the provider's SOL quote in the spec's shape, and is public", async () => {
    const res = await call(PRICE, { path: "/api/l1/price" });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      price: 142.37,
      change24h: -2.125,
      marketCap: 67_000_000_000,
      volume24h: 3_100_000_000,
    });
    const sent = new URL(market.requests.at(-1)?.path ?? "", "http://x");
    expect(Object.fromEntries(sent.searchParams)).toEqual({
      ids: "solana",
      vs_currencies: "usd",
      include_24hr_change: "true",
      include_market_cap: "true",
      include_24hr_vol: "true",
    });
  });

  it("gives null for each figure the provider leaves out", async () => {
    const saved = market.quotes.get("solana");
    market.quotes.set("solana", { usd: 150 });
    try {
      const res = await call(PRICE, { path: "/api/l1/price" });
      expect(await res.json()).toEqual({ price: 150, change24h: null, marketCap: null, volume24h: null });
    } finally {
      if (saved) market.quotes.set("solana", saved);
    }
  });

  it("caches 60 s by the injected clock: 59.999 s later no call, at 60 s one new call", async () => {
    const before = market.calls();
    await call(PRICE, { path: "/api/l1/price" });
    expect(market.calls()).toBe(before + 1);
    clock.advance(59_999);
    const cached = await call(PRICE, { path: "/api/l1/price" });
    expect((await cached.json()).price).toBe(142.37);
    expect(market.calls()).toBe(before + 1);
    clock.advance(1);
    market.quotes.set("solana", { ...market.quotes.get("solana"), usd: 143 });
    const fresh = await call(PRICE, { path: "/api/l1/price" });
    expect((await fresh.json()).price).toBe(143);
    expect(market.calls()).toBe(before + 2);
    market.quotes.set("solana", { ...market.quotes.get("solana"), usd: 142.37 });
  });

  it("20 concurrent misses make one upstream call and all get the same quote", async () => {
    const before = market.calls();
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => call(PRICE, { path: "/api/l1/price" })),
    );
    const bodies = await Promise.all(answers.map((r) => r.json()));
    expect(answers.every((r) => r.status === 200)).toBe(true);
    expect(new Set(bodies.map((b) => JSON.stringify(b))).size).toBe(1);
    expect(market.calls()).toBe(before + 1);
  });

  it("refreshes made by separate processes at once (the advisory lock) still make one call", async () => {
    const before = market.calls();
    const ctx = webContext();
    // Each call stands for another web process: no shared in-process promise, only the database.
    await Promise.all(Array.from({ length: 5 }, () => refreshUsdQuote(ctx, "solana")));
    expect(market.calls()).toBe(before + 1);
    const rows = await ctx.db.select().from(marketDataCache);
    expect(rows).toHaveLength(1);
    expect(rows[0].fetchedAt.toISOString()).toBe(clock.now().toISOString());
  });

  it("answers 500 when the provider fails, and caches nothing", async () => {
    market.failWith(503);
    const res = await call(PRICE, { path: "/api/l1/price" });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({
      error: "the price could not be fetched: the market data provider answered HTTP 503",
      code: "market_data_failed",
    });
    expect(await webContext().db.select().from(marketDataCache)).toEqual([]);
  });
});

describe("GET /api/l1/wallet", () => {
  it("reads balance, tokens and account info with three parallel calls, in the spec's shape", async () => {
    rpc.accounts.set(ADDRESS, {
      lamports: 2_500_000_000,
      executable: false,
      owner: "11111111111111111111111111111111",
      rentEpoch: 361,
      tokens: [
        { mint: USDC, amount: "12500000", decimals: 6 },
        { mint: BONK, amount: "0", decimals: 5 },
        { mint: "Abcd1111111111111111111111111111111111111", amount: "300000000000", decimals: 9 },
      ],
    });
    const { jar } = await signedInUser();
    const before = rpc.requests.length;
    const res = await call(WALLET, { path: `/api/l1/wallet?address=${ADDRESS}&rpc=https://evil.test`, jar });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      address: ADDRESS,
      solBalance: 2.5,
      tokens: [
        { mint: "Abcd1111111111111111111111111111111111111", symbol: "Abcd...", amount: 300, decimals: 9 },
        { mint: USDC, symbol: "USDC", amount: 12.5, decimals: 6 },
      ],
      accountInfo: { isExecutable: false, owner: "11111111111111111111111111111111", rentEpoch: 361 },
    });
    const sent = rpc.requests.slice(before).map((r) => JSON.parse(r.body.toString()));
    expect(sent.map((r) => r.method).sort()).toEqual([
      "getAccountInfo",
      "getBalance",
      "getTokenAccountsByOwner",
    ]);
    expect(sent.find((r) => r.method === "getTokenAccountsByOwner").params).toEqual([
      ADDRESS,
      { programId: SPL_TOKEN_PROGRAM },
      { encoding: "jsonParsed" },
    ]);
  });

  it("a balance past Number.MAX_SAFE_INTEGER lamports (a u64, rounded by JSON) is still answered in SOL", async () => {
    const address = "5xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    // u64::MAX, as the node's JSON number reads in JavaScript (rentEpoch is u64::MAX on real nodes too).
    const u64Max = Number("18446744073709551615");
    rpc.accounts.set(address, { lamports: u64Max, rentEpoch: u64Max, tokens: [] });
    const { jar } = await signedInUser();
    const res = await call(WALLET, { path: `/api/l1/wallet?address=${address}`, jar });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.solBalance).toBe(Number("18446744073.709551616"));
    expect(body.accountInfo.rentEpoch).toBe(u64Max);
  });

  it("keeps at most 20 tokens, largest amount first across decimals, known mints as tickers", async () => {
    const address = "8xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    const tokens = Array.from({ length: 25 }, (_, i) => ({
      mint: `Mint${"ABCDEFGHJKLMNPQRSTUVWXYZabcdefg"[i]}${"1".repeat(35)}`,
      amount: String((i + 1) * 1_000_000),
      decimals: 6,
    }));
    // 0.5 WSOL (9 decimals) sits between 0 and 1 whole tokens; 30 BONK (5 decimals) above all 25 others.
    tokens.push(
      { mint: WSOL, amount: "500000000", decimals: 9 },
      { mint: BONK, amount: "3000000", decimals: 5 },
    );
    rpc.accounts.set(address, { lamports: 1, tokens });
    const { jar } = await signedInUser();
    const body = await (await call(WALLET, { path: `/api/l1/wallet?address=${address}`, jar })).json();
    expect(body.tokens).toHaveLength(20);
    expect(body.tokens[0]).toEqual({ mint: BONK, symbol: "BONK", amount: 30, decimals: 5 });
    expect(body.tokens[1]).toEqual({ mint: tokens[24].mint, symbol: "Mint...", amount: 25, decimals: 6 });
    expect(body.tokens.map((t: { amount: number }) => t.amount)).toEqual([
      30, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7,
    ]);
    expect(body.solBalance).toBe(0.000000001);
  });

  it("gives nulls for an account that does not exist", async () => {
    const { jar } = await signedInUser();
    const address = "9xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
    const body = await (await call(WALLET, { path: `/api/l1/wallet?address=${address}`, jar })).json();
    expect(body).toEqual({
      address,
      solBalance: 0,
      tokens: [],
      accountInfo: { isExecutable: false, owner: null, rentEpoch: null },
    });
  });

  it("400 for a missing, short, long or non-base58 address; 401 without a session", async () => {
    const { jar } = await signedInUser();
    const before = rpc.requests.length;
    for (const query of [
      "",
      "?address=abc",
      `?address=${"1".repeat(45)}`,
      `?address=0OIl${"1".repeat(30)}`,
    ]) {
      const res = await call(WALLET, { path: `/api/l1/wallet${query}`, jar });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.code).toBe("invalid_request");
      expect(body.error).toMatch(/^Address/);
    }
    expect((await call(WALLET, { path: `/api/l1/wallet?address=${ADDRESS}` })).status).toBe(401);
    expect(rpc.requests.length).toBe(before);
  });

  it("500 naming the failure when the RPC fails or answers a JSON-RPC error", async () => {
    const { jar } = await signedInUser();
    rpc.failWith(502);
    let res = await call(WALLET, { path: `/api/l1/wallet?address=${ADDRESS}`, jar });
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatch(/^the wallet could not be read: the L1 RPC answered HTTP 502/);
    rpc.failWith("rpc-error");
    res = await call(WALLET, { path: `/api/l1/wallet?address=${ADDRESS}`, jar });
    expect(res.status).toBe(500);
    expect((await res.json()).error).toMatch(/Node is behind by 42 slots/);
  });

  it("uses the caller's saved RPC URL, and every call to it passes the outbound guard", async () => {
    const { user, jar } = await signedInUser();
    // A URL saved before the guard existed (or whose name now resolves inward) is refused at call time.
    await webContext()
      .db.insert(userRpcConfigs)
      .values({ userId: user.id, rpcUrl: "https://127.0.0.1:8899/" });
    const before = rpc.requests.length;
    const res = await call(WALLET, { path: `/api/l1/wallet?address=${ADDRESS}`, jar });
    expect(res.status).toBe(500);
    expect((await res.json()).error).toBe(
      "the wallet could not be read: refused to fetch 127.0.0.1: loopback address",
    );
    expect(rpc.requests.length).toBe(before);
    // An allowed host is called: nothing listens there over TLS, which proves it is the URL used.
    const closed = await freePort();
    await webContext()
      .db.update(userRpcConfigs)
      .set({ rpcUrl: `https://localhost:${closed}/` })
      .where(eq(userRpcConfigs.userId, user.id));
    const refused = await call(WALLET, { path: `/api/l1/wallet?address=${ADDRESS}`, jar });
    expect(refused.status).toBe(500);
    expect((await refused.json()).error).toMatch(
      /your saved L1 RPC could not be reached: connection refused/,
    );
    expect(rpc.requests.length).toBe(before);
  });

  it("an RPC answering hostile numbers gets an error or a bounded value, never a held process", async () => {
    // Huge decimals once held the web process for minutes (10n ** 200000n, viem's formatUnits). A user's saved
    // node is read by the same client and schemas; its URL must be HTTPS (a database check), which a loopback
    // fake cannot offer with a trusted certificate, so the platform's node plays the hostile one here.
    const { jar } = await signedInUser();
    const lookup = async (address: string) => {
      const res = await call(WALLET, { path: `/api/l1/wallet?address=${address}`, jar });
      return { status: res.status, text: await res.text() };
    };
    const holder = (n: number) => `Hst${n}${"1".repeat(38)}`;
    const mint = "Tok1111111111111111111111111111111111111111";

    rpc.accounts.set(holder(1), { lamports: 1, tokens: [{ mint, amount: "1", decimals: 200_000 }] });
    const decimals = await lookup(holder(1));
    expect(decimals.status).toBe(500);
    expect(JSON.parse(decimals.text)).toEqual({
      error:
        "the wallet could not be read: the L1 RPC's answer to getTokenAccountsByOwner has an unexpected " +
        "shape (value.0.account.data.parsed.info.tokenAmount.decimals: must be at most 36)",
      code: "l1_rpc_failed",
    });

    rpc.accounts.set(holder(2), {
      lamports: 1,
      tokens: [{ mint, amount: "9".repeat(1_000_000), decimals: 6 }],
    });
    const digits = await lookup(holder(2));
    expect(digits.status).toBe(500);
    expect(JSON.parse(digits.text).error).toMatch(
      /tokenAmount\.amount: must be a whole number of at most 40 digits\)$/,
    );
    expect(digits.text.length).toBeLessThan(400);

    // A mint that is not an address would be echoed into our answer: refused, the answer stays small.
    rpc.accounts.set(holder(3), {
      lamports: 1,
      tokens: [{ mint: "M".repeat(1_000_000), amount: "1", decimals: 6 }],
    });
    const echoed = await lookup(holder(3));
    expect(echoed.status).toBe(500);
    expect(JSON.parse(echoed.text).error).toMatch(/parsed\.info\.mint: address must be a base58 address/);
    expect(echoed.text.length).toBeLessThan(400);

    // The largest numbers allowed are formatted, exactly where a double can say it.
    rpc.accounts.set(holder(4), {
      lamports: 1,
      tokens: [{ mint, amount: "9".repeat(40), decimals: 36 }],
    });
    const bounded = await lookup(holder(4));
    expect(bounded.status).toBe(200);
    expect(JSON.parse(bounded.text).tokens).toEqual([
      { mint, symbol: "Tok1...", amount: Number("9999.999999999999999999999999999999999999"), decimals: 36 },
    ]);

    // A node's error text is passed on cut to 200 characters.
    rpc.failWith("rpc-error", "x".repeat(1_000_000));
    const refused = await lookup(holder(4));
    expect(refused.status).toBe(500);
    const message: string = JSON.parse(refused.text).error;
    expect(message).toMatch(
      /refused (getBalance|getTokenAccountsByOwner|getAccountInfo): x{200} \(-32005\)$/,
    );
    expect(message).not.toContain("x".repeat(201));
  });
});

describe("maskUrlCredentials", () => {
  it("masks userinfo, key-like query values and path segments of the providers' URL shapes", () => {
    const cases: [string, string][] = [
      [
        "https://mainnet.helius-rpc.com/?api-key=3f1c2b7e-0d4a-4b8e-9c1f-2a6d8e4b7c90",
        "https://mainnet.helius-rpc.com/?api-key=***",
      ],
      [
        "https://solana-mainnet.g.alchemy.com/v2/AbCdEf0123456789GhIjKl",
        "https://solana-mainnet.g.alchemy.com/v2/***",
      ],
      [
        "https://old-fabled-pine.solana-mainnet.quiknode.pro/4f0e6a9b1c2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f/",
        "https://old-fabled-pine.solana-mainnet.quiknode.pro/***/",
      ],
      ["https://user:pass@rpc.provider.io/", "https://***:***@rpc.provider.io/"],
      ["https://rpc.provider.io/?token=short&x=1", "https://rpc.provider.io/?token=***&x=1"],
      [
        "https://rpc.provider.io/?id=Zk29aQ0pLm4nB7vX&cluster=main",
        "https://rpc.provider.io/?id=***&cluster=main",
      ],
      // Nothing to mask: unchanged, byte for byte.
      ["https://api.mainnet-beta.solana.com", "https://api.mainnet-beta.solana.com"],
      ["http://127.0.0.1:8899/rpc?cluster=devnet", "http://127.0.0.1:8899/rpc?cluster=devnet"],
      ["not a url", "***"],
    ];
    for (const [raw, masked] of cases) expect(maskUrlCredentials(raw), raw).toBe(masked);
  });
});

describe("GET /api/l1/verify", () => {
  const holder = (balance: string, decimals = 6) => {
    const address = `HoLd${balance.replace(/0/g, "z").padEnd(12, "1")}${"2".repeat(24)}`;
    rpc.accounts.set(address, { lamports: 0, tokens: [{ mint: MINT, amount: balance, decimals }] });
    return address;
  };
  const verify = async (address: string) => {
    const res = await call(VERIFY, { path: `/api/l1/verify?address=${address}` });
    expect(res.status).toBe(200);
    return res.json();
  };
  const TIERS = [
    { name: "Holder", min: 1000, credits: 50, basefm: "exclusive DJ streams" },
    { name: "Builder", min: 10000, credits: 100, basefm: "early features and premium playlists" },
    { name: "Whale", min: 100000, credits: 200, basefm: "VIP chat, voting, revenue share" },
  ];

  it("999 is not eligible; every tier is still listed", async () => {
    const address = holder("999000000");
    expect(await verify(address)).toEqual({
      address,
      token: MINT,
      balance: 999,
      eligible: false,
      benefits: [],
      tiers: TIERS,
    });
    const sent = JSON.parse(rpc.requests.at(-1)?.body.toString() ?? "{}");
    expect(sent.params).toEqual([address, { mint: MINT }, { encoding: "jsonParsed" }]);
  });

  it("1,000 is a Holder; 10,000 a Builder too; 100,000 all three", async () => {
    const holderBody = await verify(holder("1000000000"));
    expect(holderBody).toMatchObject({ balance: 1000, eligible: true });
    expect(holderBody.benefits).toEqual([{ tier: "Holder", perk: "exclusive DJ streams" }]);
    const builder = await verify(holder("10000000000"));
    expect(builder.benefits.map((b: { tier: string }) => b.tier)).toEqual(["Holder", "Builder"]);
    const whale = await verify(holder("100000000000"));
    expect(whale.benefits).toEqual([
      { tier: "Holder", perk: "exclusive DJ streams" },
      { tier: "Builder", perk: "early features and premium playlists" },
      { tier: "Whale", perk: "VIP chat, voting, revenue share" },
    ]);
    expect(whale.tiers).toEqual(TIERS);
    const almostWhale = await verify(holder("99999999999"));
    expect(almostWhale.benefits).toHaveLength(2);
  });

  it("400 for a bad address; 502 when the RPC fails", async () => {
    const bad = await call(VERIFY, { path: "/api/l1/verify?address=not-base58!" });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe("Address must be a base58 address of 32 to 44 characters");
    rpc.failWith(500);
    const down = await call(VERIFY, { path: `/api/l1/verify?address=${ADDRESS}` });
    expect(down.status).toBe(502);
    expect(await down.json()).toEqual({
      error: "the token balance could not be read: the L1 RPC answered HTTP 500 to getTokenAccountsByOwner",
      code: "l1_rpc_failed",
    });
  });
});

describe("GET/POST /api/l1/rpc-config", () => {
  const post = (jar: Awaited<ReturnType<typeof signedInUser>>["jar"], json: unknown) =>
    call(RPC_POST, { method: "POST", path: "/api/l1/rpc-config", json, jar });

  it("starts at the default, saves an HTTPS URL, and reads it back as the user's", async () => {
    const { jar } = await signedInUser();
    expect(await (await call(RPC_GET, { path: "/api/l1/rpc-config", jar })).json()).toEqual({
      rpcUrl: MASKED_DEFAULT_RPC,
      defaultRpcUrl: MASKED_DEFAULT_RPC,
      source: "default",
    });
    const saved = await post(jar, { rpcUrl: "https://localhost:8899/?api-key=abc123" });
    expect(saved.status).toBe(200);
    expect(await saved.json()).toEqual({ success: true, rpcUrl: "https://localhost:8899/?api-key=abc123" });
    const read = await call(RPC_GET, { path: "/api/l1/rpc-config", jar });
    const text = await read.text();
    expect(JSON.parse(text)).toEqual({
      rpcUrl: "https://localhost:8899/?api-key=abc123",
      defaultRpcUrl: MASKED_DEFAULT_RPC,
      source: "user",
    });
    // The operator's credentials appear nowhere in the answer, in any encoding.
    for (const secret of [OPERATOR_KEY, "hunter2secret", "operator:"]) expect(text).not.toContain(secret);
  });

  it("400 for each refused URL, with the reason, and nothing saved", async () => {
    const { user, jar } = await signedInUser();
    const cases: [unknown, string][] = [
      [{}, "RPC URL is required"],
      [{ rpcUrl: 42 }, "RPC URL must be a string"],
      [{ rpcUrl: "not a url" }, "RPC URL is not a valid URL"],
      [{ rpcUrl: "http://rpc.helius.xyz/" }, "RPC URL must use https"],
      [
        { rpcUrl: "https://mainnet.helius-rpc.com/?api-key=" },
        "RPC URL is a placeholder: the api-key value is empty",
      ],
      [
        { rpcUrl: "https://rpc.example.com/" },
        "RPC URL is a placeholder: rpc.example.com is an example host, not your RPC provider",
      ],
      [
        { rpcUrl: "https://your-rpc.provider.io/" },
        "RPC URL is a placeholder: your-rpc.provider.io is an example host, not your RPC provider",
      ],
      [
        { rpcUrl: "https://rpc.provider.io/<YOUR_KEY>" },
        "RPC URL is a placeholder: replace the <…> part with your value",
      ],
      [
        { rpcUrl: "https://127.0.0.1/" },
        "RPC URL is not allowed: refused to fetch 127.0.0.1: it resolves to a loopback address (127.0.0.1)",
      ],
      [
        { rpcUrl: "https://10.1.2.3/" },
        "RPC URL is not allowed: refused to fetch 10.1.2.3: it resolves to a private address (10.1.2.3)",
      ],
      [
        { rpcUrl: "https://169.254.169.254/" },
        "RPC URL is not allowed: refused to fetch 169.254.169.254: it resolves to a link-local address (169.254.169.254)",
      ],
    ];
    for (const [json, message] of cases) {
      const res = await post(jar, json);
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect((await res.json()).error).toBe(message);
    }
    const rows = await webContext().db.execute(
      sql`select 1 from user_rpc_configs where user_id = ${user.id}`,
    );
    expect(rows.rows).toHaveLength(0);
  });

  it("401 without a session", async () => {
    expect((await call(RPC_GET, { path: "/api/l1/rpc-config" })).status).toBe(401);
    expect(
      (
        await call(RPC_POST, {
          method: "POST",
          path: "/api/l1/rpc-config",
          json: { rpcUrl: "https://a.io/" },
        })
      ).status,
    ).toBe(401);
  });
});

// The clock class is the one the context uses; a sanity check that the test moved time, not slept.
it("the test clock is the injected manual clock", () => {
  expect(clock).toBeInstanceOf(ManualClock);
});
