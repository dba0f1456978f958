/**
 * What the agent identity proof costs a call that carries an agent's secret (issue 24), each figure beside
 * its anchor from the same run. One loopback agent (the one fake agent runtime, answering the identity
 * challenge as the wrapper does) in its own worker thread; the calls from the main thread through
 * `requestAgent`, `POST /v1/chat/completions` with the gateway token.
 * 1. Hot path, sequential, in interleaved rounds: proven (`identityKey`: the request goes out on a kept-alive
 *    connection the wrapper already proved) against unproven (no key, Node's keep-alive agent); p50/p99 µs.
 * 2. Hot path, 10 concurrent callers, in rounds of alternating order: calls/s proven against unproven.
 * 3. A new connection: connect + the identity challenge (`proveAgentIdentity`), against connect + one plain
 *    GET on a fresh connection; p50 µs. This is paid once per connection, not per call.
 * Knobs: BENCH_CALLS (3000), BENCH_ROUNDS (6).
 */
import http from "node:http";
import net from "node:net";
import { performance } from "node:perf_hooks";
import { proveAgentIdentity, requestAgent } from "../common/src/index";
import { startBenchWorker } from "./lib/workers";

const CALLS = Number(process.env.BENCH_CALLS ?? 3000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const TOKEN = "bench-gateway-token";
const PASSWORD = "bench-wrapper-admin-password";

const { port, worker } = await startBenchWorker(
  new URL("./lib/agent-runtime-worker.ts", import.meta.url).href,
  {
    token: TOKEN,
    delayMs: 0,
    adminPassword: PASSWORD,
  },
);
worker.on("message", () => undefined);
const url = `http://127.0.0.1:${port}`;

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const f = (us: number) => us.toFixed(0);
const r = (x: number) => x.toFixed(2);

function chat(identityKey: string | undefined) {
  return requestAgent(url, {
    method: "POST",
    path: "/v1/chat/completions",
    token: TOKEN,
    identityKey,
    body: { model: "openclaw", messages: [{ role: "user", content: "hi" }] },
    timeoutMs: 10_000,
  });
}

async function sequential(identityKey: string | undefined, count: number): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const answer = await chat(identityKey);
    times.push((performance.now() - t0) * 1000);
    if (answer.status !== 200) throw new Error(`the agent answered ${answer.status}`);
  }
  return times;
}

async function concurrent(identityKey: string | undefined, count: number, width = 10): Promise<number> {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next++ < count) await chat(identityKey);
    }),
  );
  return count / ((performance.now() - t0) / 1000);
}

function connect(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: "127.0.0.1", port }, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** A plain GET on a fresh connection (the anchor of a new proven connection). */
function freshGet(): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = http.get(`${url}/healthz`, { agent: false }, (res) => {
      res.resume();
      res.on("end", () => resolve());
    });
    req.once("error", reject);
  });
}

// Warm-up: connections, JIT.
await sequential(undefined, 300);
await sequential(PASSWORD, 300);

const plain: number[] = [];
const proven: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  plain.push(...(await sequential(undefined, Math.ceil(CALLS / ROUNDS))));
  proven.push(...(await sequential(PASSWORD, Math.ceil(CALLS / ROUNDS))));
}
console.log(
  `sequential ${plain.length} calls each: unproven p50 ${f(pct(plain, 50))} µs p99 ${f(pct(plain, 99))} µs; ` +
    `proven p50 ${f(pct(proven, 50))} µs p99 ${f(pct(proven, 99))} µs; ` +
    `proven / unproven p50 ${r(pct(proven, 50) / pct(plain, 50))}x`,
);

// Rounds in alternating order, each figure the mean of its rounds.
let plainRate = 0;
let provenRate = 0;
for (let round = 0; round < ROUNDS; round++) {
  const count = Math.ceil(CALLS / ROUNDS);
  if (round % 2 === 0) {
    plainRate += (await concurrent(undefined, count)) / ROUNDS;
    provenRate += (await concurrent(PASSWORD, count)) / ROUNDS;
  } else {
    provenRate += (await concurrent(PASSWORD, count)) / ROUNDS;
    plainRate += (await concurrent(undefined, count)) / ROUNDS;
  }
}
console.log(
  `10 concurrent callers, ${CALLS} calls each way: unproven ${f(plainRate)}/s, proven ${f(provenRate)}/s, ` +
    `proven / unproven ${r(provenRate / plainRate)}x`,
);

const fresh: number[] = [];
const proofs: number[] = [];
for (let i = 0; i < 300; i++) {
  let t0 = performance.now();
  await freshGet();
  fresh.push((performance.now() - t0) * 1000);
  t0 = performance.now();
  const socket = await connect();
  await proveAgentIdentity(socket, url, PASSWORD);
  proofs.push((performance.now() - t0) * 1000);
  socket.destroy();
}
console.log(
  `a new connection, 300 each: connect + plain GET p50 ${f(pct(fresh, 50))} µs; ` +
    `connect + identity proof p50 ${f(pct(proofs, 50))} µs (${r(pct(proofs, 50) / pct(fresh, 50))}x)`,
);
await worker.terminate();
process.exit(0);
