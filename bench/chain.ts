/**
 * Chain and agent-wallet speed, each figure beside its anchor from the same run (one process, one embedded
 * PostgreSQL in /dev/shm):
 * 1. Wallet lookup: the work of `GET /api/l1/wallet` (session check, query parse, saved-RPC lookup, three
 *    JSON-RPC calls in parallel through the outbound client, zod checks, token sort) against a loopback Solana
 *    RPC that answers in 20 ms, beside the same three RPC calls made directly in parallel with `fetch`.
 *    Sequential, interleaved; overhead = p50(ours) - p50(direct). Goal: under 3 ms.
 * 2. make-payment to a loopback x402 v2 seller (with its loopback facilitator checking every signature),
 *    with the spending policy and the PostgreSQL daily-cap reservation and ledger on, beside the bare x402
 *    client (`wrapFetchWithPayment` + `registerExactEvmScheme`, global fetch) paying the same seller.
 *    Payments per second at BENCH_CONCURRENCY (4) for BENCH_DURATION seconds (5) each, in alternating rounds
 *    (BENCH_ROUNDS, 2). Goal: ours at least 0.7x the bare client.
 */
import { performance } from "node:perf_hooks";
import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { startFakeSolanaRpc } from "../common/testing/fakes/solana-rpc";
import { startFakeX402Facilitator, startFakeX402Seller } from "../common/testing/fakes/x402";
import { migrateDatabase } from "../drizzle/migrate";
import { agents } from "../drizzle/schema";
import { createUser } from "../web/lib/accounts/users";
import { l1AddressQuery } from "../web/lib/chain/inputs";
import { getRpcConfig, lookupWallet } from "../web/lib/chain/service";
import { loadWebConfig } from "../web/lib/infra/config";
import { closeWebContext, overrideWebContext, webContext } from "../web/lib/infra/context";
import { parseWith } from "../web/lib/infra/http/body";
import { requireSessionUser } from "../web/lib/sessions/require";
import { createSession, SESSION_COOKIE } from "../web/lib/sessions/service";
import { makePayment } from "../web/lib/wallets/payer";
import { createWallet } from "../web/lib/wallets/service";
import { callsPerSecond } from "./lib/load";
import { startBenchPostgres } from "./lib/postgres";

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const SEQUENTIAL = env("BENCH_SEQUENTIAL", 300);
const CONCURRENCY = env("BENCH_CONCURRENCY", 4);
const DURATION_S = env("BENCH_DURATION", 5);
const ROUNDS = env("BENCH_ROUNDS", 2);

const p = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
};
const ms = (n: number) => `${n.toFixed(2)} ms`;

const { cluster, stop } = await startBenchPostgres("chain");
const rpc = await startFakeSolanaRpc();
const facilitator = await startFakeX402Facilitator();
const seller = await startFakeX402Seller({ version: 2, facilitatorUrl: facilitator.url });
try {
  const url = cluster.url();
  await migrateDatabase(url);
  const config = loadWebConfig({
    DATABASE_URL: url,
    SESSION_SECRET: "bench-session-secret-0123456789abcdef",
    LOG_LEVEL: "silent",
    L1_RPC_URL: rpc.url,
    OUTBOUND_ALLOW_HOSTS: "localhost",
    WALLET_ENCRYPTION_KEY: "ab".repeat(32),
    AGENT_PAYMENT_DAILY_USD: "1000000",
  });
  overrideWebContext({ config });
  const ctx = webContext();
  const user = await createUser(ctx, { email: "bench@example.com", name: "bench" });
  const { token } = await createSession(ctx, user.id);

  // 1. Wallet lookup.
  const address = "7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU";
  rpc.accounts.set(address, {
    lamports: 2_500_000_000,
    tokens: Array.from({ length: 8 }, (_, i) => ({
      mint: `Mint${i}${"1".repeat(39)}`,
      amount: String((i + 1) * 1_000_000),
      decimals: 6,
    })),
  });
  rpc.delayMs = 20;
  const request = () =>
    new Request(`http://localhost:3000/api/l1/wallet?address=${address}`, {
      headers: { cookie: `${SESSION_COOKIE}=${token}` },
    });
  const ours = async () => {
    const req = request();
    const caller = await requireSessionUser(ctx, req);
    const { address: parsed } = parseWith(l1AddressQuery, Object.fromEntries(new URL(req.url).searchParams));
    return lookupWallet(ctx, caller.id, parsed);
  };
  const rpcCall = (method: string, params: unknown[]) =>
    fetch(rpc.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
    }).then((r) => r.json());
  const direct = () =>
    Promise.all([
      rpcCall("getBalance", [address]),
      rpcCall("getTokenAccountsByOwner", [
        address,
        { programId: "TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA" },
        { encoding: "jsonParsed" },
      ]),
      rpcCall("getAccountInfo", [address, { encoding: "base64" }]),
    ]);
  for (let i = 0; i < 20; i++) await Promise.all([ours(), direct()]);
  const times = { ours: [] as number[], direct: [] as number[] };
  for (let i = 0; i < SEQUENTIAL; i++) {
    for (const [name, fn] of i % 2
      ? ([
          ["direct", direct],
          ["ours", ours],
        ] as const)
      : ([
          ["ours", ours],
          ["direct", direct],
        ] as const)) {
      const start = performance.now();
      await fn();
      times[name].push(performance.now() - start);
    }
  }
  const overhead = p(times.ours, 0.5) - p(times.direct, 0.5);
  console.log(`wallet lookup, ${SEQUENTIAL} sequential each, RPC answering in 20 ms`);
  console.log(`  ours   p50 ${ms(p(times.ours, 0.5))}  p99 ${ms(p(times.ours, 0.99))}`);
  console.log(
    `  direct p50 ${ms(p(times.direct, 0.5))}  p99 ${ms(p(times.direct, 0.99))}  (three fetches in parallel)`,
  );
  console.log(`  overhead p50 ${ms(overhead)} (goal < 3 ms) ${overhead < 3 ? "✔" : "✘"}`);
  {
    // Where ours spends beyond the RPC calls: its two database reads, measured alone in this run.
    const parts = { session: [] as number[], rpcUrl: [] as number[] };
    for (let i = 0; i < 100; i++) {
      let t = performance.now();
      await requireSessionUser(ctx, request());
      parts.session.push(performance.now() - t);
      t = performance.now();
      await getRpcConfig(ctx, user.id);
      parts.rpcUrl.push(performance.now() - t);
    }
    console.log(
      `  its database reads alone: session p50 ${ms(p(parts.session, 0.5))}, saved RPC URL p50 ${ms(p(parts.rpcUrl, 0.5))}`,
    );
  }

  // 2. make-payment against the bare x402 client.
  const [agent] = await ctx.db
    .insert(agents)
    .values({ id: "agt_bench", userId: user.id, name: "bench", status: "running" })
    .returning();
  await createWallet(ctx, user.id, { agentId: agent.id, companyId: "bench" });
  const target = `${seller.url.replace("127.0.0.1", "localhost")}/paid`;
  const bareClient = new x402Client();
  registerExactEvmScheme(bareClient, { signer: privateKeyToAccount(generatePrivateKey()) });
  const barePay = wrapFetchWithPayment(fetch, bareClient);
  const payOurs = async () => {
    const res = await makePayment(ctx, user.id, {
      agentId: agent.id,
      url: target,
      method: "GET",
      headers: {},
    });
    if (res.result.status !== 200) throw new Error(`ours: ${res.result.status}`);
  };
  const payBare = async () => {
    const res = await barePay(target);
    if (res.status !== 200) throw new Error(`bare: ${res.status}`);
    await res.arrayBuffer();
  };
  const throughput = (fn: () => Promise<void>) => callsPerSecond(CONCURRENCY, DURATION_S, fn);
  for (let i = 0; i < 10; i++) await Promise.all([payOurs(), payBare()]);
  const rates = { ours: [] as number[], bare: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? (["bare", "ours"] as const) : (["ours", "bare"] as const);
    for (const name of order) rates[name].push(await throughput(name === "ours" ? payOurs : payBare));
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const ratio = mean(rates.ours) / mean(rates.bare);
  console.log(
    `make-payment (x402 v2, loopback seller + facilitator), concurrency ${CONCURRENCY}, ${ROUNDS} x ${DURATION_S} s each`,
  );
  console.log(
    `  ours ${mean(rates.ours).toFixed(1)} payments/s (${rates.ours.map((r) => r.toFixed(1)).join(", ")})`,
  );
  console.log(
    `  bare x402 client ${mean(rates.bare).toFixed(1)} payments/s (${rates.bare.map((r) => r.toFixed(1)).join(", ")})`,
  );
  console.log(`  ratio ${ratio.toFixed(2)}x (goal >= 0.7x) ${ratio >= 0.7 ? "✔" : "✘"}`);
  console.log(`  settled by the facilitator: ${facilitator.settlements.filter((s) => s.transaction).length}`);
} finally {
  await closeWebContext();
  await Promise.all([rpc.close(), seller.close(), facilitator.close()]);
  await stop();
}
