import { startFakeUpstream } from "@svc/common/testing";
import { startFakeX402Facilitator } from "@svc/common/testing/fakes/x402";
import { mppUsedNonces, paymentSessions, paymentSessionVouchers } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import type { LocalAccount } from "viem";
import { afterAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/gateway/route";
import { POST as OPEN } from "@/app/api/wallet/sessions/route";
import { useRunningServers } from "../../../common/testing/running-servers";
import type { HttpError } from "../infra/http/errors";
import { call, makeRequest, useWebTestContext, webContext } from "../infra/testing";
import {
  ANSWER_LEASE_MS,
  debitPaymentSession,
  MAX_STORED_ANSWER_BYTES,
  sessionDebitBatch,
} from "./billing/session";
import { mppxClient, newAccount, signCredential } from "./mpp-support";
import { microsToUsd, usdToMicros } from "./pricing";
import { handleGatewayCall } from "./service";
import { HI, startFakePlugin } from "./test-support";

const facilitator = await startFakeX402Facilitator();
const plugin = await startFakePlugin();
/** USDC on Base Sepolia, its EIP-712 domain left to mppx's table (issue #25 item 2: it signs as "USDC"). */
const ENV = {
  GATEWAY_PLUGIN_AGENT_URL: plugin.url,
  GATEWAY_PLUGIN_STT_URL: plugin.url,
  GATEWAY_PLUGIN_STT_PRICE_USD: "0.10",
  GATEWAY_PLUGIN_TTS_URL: plugin.url,
  GATEWAY_AUTH_PLUGINS: "tts",
  MPP_RECIPIENT: newAccount().address,
  MPP_CHAIN_ID: "84532",
  MPP_TOKEN_ADDRESS: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  MPP_SECRET: "mpp-test-secret-0123456789abcdef0123456789",
  MPP_FACILITATOR_URL: facilitator.url,
};
const { clock, config } = useWebTestContext(ENV);
afterAll(async () => {
  await facilitator.close();
  await plugin.close();
});

interface Opened {
  sessionId: string;
  walletAddress: string;
  balance: string;
  expiresAt: string;
}

type SessionRef = { sessionId: string; walletAddress: string };

/** Opens a session through the route handler (the injected clock's time), paid by the real mppx client. */
async function openSession(deposit: string, account: LocalAccount = newAccount()) {
  const client = mppxClient(account, { handler: OPEN });
  const res = await client.fetch("http://localhost:3000/api/wallet/sessions", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ deposit }),
  });
  expect(res.status, await res.clone().text()).toBe(201);
  return { session: (await res.json()) as Opened, account };
}

function sessionCall(
  session: SessionRef,
  json: Record<string, unknown> = HI,
  headers: Record<string, string> = {},
) {
  return call(POST, sessionCallRequest(session, json, headers));
}

function sessionCallRequest(
  session: SessionRef,
  json: Record<string, unknown> = HI,
  headers: Record<string, string> = {},
) {
  return {
    method: "POST",
    path: "/api/v1/gateway",
    json,
    headers: sessionHeaders(session, headers),
  };
}

function sessionHeaders(session: SessionRef, headers: Record<string, string> = {}) {
  return {
    "x-payment-method": "session",
    "x-session-id": session.sessionId,
    "x-wallet-address": session.walletAddress,
    ...headers,
  };
}

function sessionsOf(wallet: string) {
  return webContext()
    .db.select()
    .from(paymentSessions)
    .where(eq(paymentSessions.walletAddress, wallet.toLowerCase()));
}

async function balanceOf(id: string) {
  const result = await webContext().db.execute<{ b: string }>(
    sql`select balance_usd::text as b from payment_sessions where id = ${id}`,
  );
  return result.rows[0]?.b;
}

async function expectUnauthorized(res: Response) {
  expect(res.status).toBe(401);
  expect(await res.json()).toEqual({ error: "Unauthorized", message: expect.any(String) });
  // The plugin's MPP challenge, so an MPP client can still pay it.
  expect(res.headers.get("www-authenticate")).toMatch(/^Payment amount=0\.03, currency=USD, /);
}

/** A credential for the challenge of a 401 (mppx reads challenges from 402s). */
const credentialFor = (res: Response, account: LocalAccount) =>
  signCredential(new Response(null, { status: 402, headers: res.headers }), account);

describe("payment sessions through the running web server (USDC on Base Sepolia)", () => {
  const servers = useRunningServers({ web: ENV });
  const http = (path: string, init: { json?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${servers.web.url}${path}`, {
      method: init.json === undefined ? "GET" : "POST",
      headers: {
        ...(init.json === undefined ? {} : { "content-type": "application/json" }),
        ...init.headers,
      },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  /** Opens a session over HTTP, its deposit paid by the real mppx client. */
  async function openSession(deposit: string, account: LocalAccount = newAccount()) {
    const res = await mppxClient(account).fetch(`${servers.web.url}/api/wallet/sessions`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ deposit }),
    });
    expect(res.status, await res.clone().text()).toBe(201);
    return { session: (await res.json()) as Opened, account };
  }
  /** `POST /api/wallet/sessions` with `json`, paid by `authorization` when given (an MPP credential). */
  const postDeposit = (json: Record<string, unknown>, authorization?: string) =>
    http("/api/wallet/sessions", { json, headers: authorization ? { authorization } : {} });
  const read = (id: string, wallet?: string) =>
    http(`/api/wallet/sessions/${id}`, { headers: wallet ? { "x-wallet-address": wallet } : {} });
  const sessionCall = (
    session: SessionRef,
    json: Record<string, unknown> = HI,
    headers: Record<string, string> = {},
  ) => http("/api/v1/gateway", { json, headers: sessionHeaders(session, headers) });
  const tts = (headers: Record<string, string>) =>
    http("/api/v1/gateway", { json: { plugin: "tts", text: "hi" }, headers });

  describe("POST /api/wallet/sessions", () => {
    it("opens a session paid by the real mppx client: its signer is the wallet; 201 with the session", async () => {
      const settled = facilitator.settlements.length;
      const { session, account } = await openSession("1.00");
      expect(session).toEqual({
        sessionId: expect.stringMatching(/^ps_[0-9a-z]{26}$/),
        walletAddress: account.address.toLowerCase(),
        balance: "1.00",
        expiresAt: expect.any(String),
      });
      const [row] = await sessionsOf(account.address);
      expect(row).toMatchObject({ id: session.sessionId, balanceUsd: "1.000000" });
      expect(session.expiresAt).toBe(row.expiresAt?.toISOString());
      expect(facilitator.settlements.length).toBe(settled + 1);
      expect(facilitator.settlements.at(-1)).toMatchObject({
        from: account.address,
        value: "1000000",
        network: "eip155:84532",
      });
    });

    it("402 with an MPP offer for the deposit when no credential comes; 400 for a deposit out of range", async () => {
      const res = await postDeposit({ deposit: "2.50" });
      expect(res.status).toBe(402);
      const body = await res.json();
      expect(body).toMatchObject({ error: "payment_required", mpp: { amount: "2.50", currency: "USD" } });
      expect(body.stripe).toBeUndefined();
      expect(res.headers.get("www-authenticate")).toMatch(
        /^Payment amount=2\.50, currency=USD, recipient=0x/,
      );
      for (const deposit of ["0.99", "100.01"]) {
        const out = await postDeposit({ deposit });
        expect(out.status).toBe(400);
        expect((await out.json()).message).toBe("Deposit must be between 1.00 and 100.00 USD");
      }
      const missing = await postDeposit({});
      expect(missing.status).toBe(400);
      expect(await missing.json()).toMatchObject({
        message: expect.stringMatching(/^Deposit /),
        field: "deposit",
      });
    });

    it("a deposit credential opens one session only", async () => {
      const account = newAccount();
      const offer = await postDeposit({ deposit: "1.00" });
      const credential = await signCredential(offer, account);
      const open = () => postDeposit({ deposit: "1.00" }, credential);
      const answers = await Promise.all([open(), open(), open()]);
      // A copy that arrives while the first is being settled is refused (402); one that arrives once it is
      // settled answers the same session (the first answer may have been lost), opening no other.
      const statuses = answers.map((r) => r.status);
      expect(statuses).toContain(201);
      expect(statuses.every((status) => status === 201 || status === 402)).toBe(true);
      const opened = (await Promise.all(
        answers.filter((r) => r.status === 201).map((r) => r.json()),
      )) as Opened[];
      expect(new Set(opened.map((o) => o.sessionId)).size).toBe(1);
      const first = opened[0];
      const again = await open();
      expect(again.status).toBe(201);
      expect(((await again.json()) as Opened).sessionId).toBe(first.sessionId);
      expect(await sessionsOf(account.address)).toHaveLength(1);
    });

    it("a deposit settled whose session insert failed: the same credential opens its one session, once under concurrency", async () => {
      const account = newAccount();
      const wallet = account.address.toLowerCase();
      const offer = await postDeposit({ deposit: "2.00" });
      const credential = await signCredential(offer, account);
      const open = () => postDeposit({ deposit: "2.00" }, credential);
      const settledBefore = facilitator.settlements.length;
      // The session insert of this wallet fails (as if the process stopped after settling the deposit).
      const { db } = webContext();
      const tag = wallet.slice(2, 14);
      await db.execute(
        sql.raw(`create function fail_session_${tag}() returns trigger language plpgsql as $$
          begin raise exception 'session insert failed (test)'; end $$`),
      );
      await db.execute(
        sql.raw(`create trigger fail_session_${tag} before insert on payment_sessions for each row
          when (new.wallet_address = '${wallet}') execute function fail_session_${tag}()`),
      );
      let failed: Response;
      try {
        failed = await open();
      } finally {
        await db.execute(sql.raw(`drop trigger fail_session_${tag} on payment_sessions`));
        await db.execute(sql.raw(`drop function fail_session_${tag}()`));
      }
      expect(failed.status).toBe(500);
      expect(facilitator.settlements.length).toBe(settledBefore + 1);
      const [claim] = await db.select().from(mppUsedNonces).where(eq(mppUsedNonces.payer, wallet));
      expect(claim.txHash).toMatch(/^0x/);
      expect(await sessionsOf(wallet)).toHaveLength(0);

      // Paid on chain, no session: the same credential, twice at once, opens exactly one session for it.
      const retries = await Promise.all([open(), open()]);
      expect(retries.map((r) => r.status)).toEqual([201, 201]);
      const [a, b] = (await Promise.all(retries.map((r) => r.json()))) as Opened[];
      expect(a.sessionId).toBe(b.sessionId);
      expect(a).toMatchObject({ walletAddress: wallet, balance: "2.00" });
      const sessions = await sessionsOf(wallet);
      expect(sessions).toHaveLength(1);
      expect(sessions[0]).toMatchObject({ id: a.sessionId, fundingTxHash: claim.txHash });
      // Not settled again.
      expect(facilitator.settlements.length).toBe(settledBefore + 1);
    });

    it("GET reads it with its wallet; another wallet or an unknown id is 404; no wallet header is 400", async () => {
      const { session } = await openSession("3.00");
      const res = await read(session.sessionId, session.walletAddress.toUpperCase().replace("0X", "0x"));
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(session);
      expect((await read(session.sessionId, newAccount().address)).status).toBe(404);
      expect((await read("ps_unknown", session.walletAddress)).status).toBe(404);
      const bad = await read(session.sessionId);
      expect(bad.status).toBe(400);
      expect((await bad.json()).message).toMatch(/^X-Wallet-Address (is required|must be)/);
    });
  });

  describe("POST /api/v1/gateway billed to a session", () => {
    it("debits the price, answers the voucher and the balance, numbering vouchers per session", async () => {
      const { session } = await openSession("1.00");
      const first = await sessionCall(session);
      expect(first.status).toBe(200);
      expect(first.headers.get("payment-receipt")).toBe(`session:${session.sessionId}:1`);
      expect(first.headers.get("x-session-remaining")).toBe("0.95");
      expect(first.headers.get("x-plugin-id")).toBe("agent");
      const second = await sessionCall(session);
      expect(second.headers.get("payment-receipt")).toBe(`session:${session.sessionId}:2`);
      expect(second.headers.get("x-session-remaining")).toBe("0.90");
      expect(await balanceOf(session.sessionId)).toBe("0.900000");
    });

    it("402 session_required when a header is missing", async () => {
      const cases: Record<string, string>[] = [{ "x-session-id": "" }, { "x-wallet-address": "" }];
      for (const headers of cases) {
        const res = await sessionCall(
          { sessionId: "ps_x", walletAddress: newAccount().address },
          HI,
          headers,
        );
        expect(res.status).toBe(402);
        expect((await res.json()).error).toBe("session_required");
      }
    });

    it("an Idempotency-Key replay answers the first answer and voucher, debiting and calling once", async () => {
      const { session } = await openSession("1.00");
      const callsBefore = plugin.calls.length;
      const first = await sessionCall(
        session,
        { messages: [{ role: "user", content: "once" }] },
        { "idempotency-key": "k-1" },
      );
      const firstBody = await first.json();
      const replay = await sessionCall(
        session,
        { messages: [{ role: "user", content: "once" }] },
        { "idempotency-key": "k-1" },
      );
      expect(replay.status).toBe(200);
      expect(await replay.json()).toEqual(firstBody);
      expect(replay.headers.get("payment-receipt")).toBe(first.headers.get("payment-receipt"));
      expect(replay.headers.get("x-session-remaining")).toBe("0.95");
      expect(plugin.calls.length).toBe(callsBefore + 1);
      expect(await balanceOf(session.sessionId)).toBe("0.950000");
      const otherKey = await sessionCall(session, HI, { "idempotency-key": "k-2" });
      expect(otherKey.headers.get("payment-receipt")).toBe(`session:${session.sessionId}:2`);
    });
  });

  describe("a plugin registered with auth (tts here) needs a verified caller", () => {
    it("401 for an MPP credential that does not verify (another plugin's price, a wrong signer, garbage)", async () => {
      const account = newAccount();
      const callsBefore = plugin.calls.length;
      const settled = facilitator.settlements.length;
      const agentOffer = await http("/api/v1/gateway", {
        json: { plugin: "agent", ...HI },
        headers: { "x-payment-method": "mpp" },
      });
      expect(agentOffer.status).toBe(402);
      const forAgent = await signCredential(agentOffer, account);
      await expectUnauthorized(await tts({ authorization: forAgent }));
      const ttsOffer = await tts({});
      await expectUnauthorized(ttsOffer);
      const wrongSigner = await signCredential(
        new Response(null, { status: 402, headers: ttsOffer.headers }),
        account,
        {
          signer: newAccount(),
        },
      );
      await expectUnauthorized(await tts({ authorization: wrongSigner }));
      await expectUnauthorized(await tts({ authorization: "Payment not-a-credential" }));
      expect(plugin.calls.length).toBe(callsBefore);
      expect(facilitator.settlements.length).toBe(settled);
    });

    it("a verified MPP credential or an active payment session is served and pays", async () => {
      const account = newAccount();
      const offer = await tts({});
      await expectUnauthorized(offer);
      const paid = await tts({ authorization: await credentialFor(offer, account) });
      expect(paid.status).toBe(200);
      expect(paid.headers.get("payment-receipt")).toMatch(/^0x[0-9a-f]{64}$/);
      expect(facilitator.settlements.at(-1)).toMatchObject({ from: account.address, value: "30000" });

      const { session } = await openSession("1.00");
      const res = await tts({
        "x-payment-method": "session",
        "x-session-id": session.sessionId,
        "x-wallet-address": session.walletAddress,
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ plugin: "tts", echo: { text: "hi" } });
      expect(res.headers.get("payment-receipt")).toBe(`session:${session.sessionId}:1`);
      expect(res.headers.get("x-session-remaining")).toBe("0.97");
    });
  });
});

describe("POST /api/v1/gateway billed to a session", () => {
  it("402 session_invalid for an unknown session, another wallet, or an expired one; nothing debited", async () => {
    const { session } = await openSession("1.00");
    const unknown = await sessionCall({ ...session, sessionId: "ps_nope" });
    expect((await unknown.json()).error).toBe("session_invalid");
    const other = await sessionCall({ ...session, walletAddress: newAccount().address });
    expect(other.status).toBe(402);
    expect((await other.json()).error).toBe("session_invalid");
    clock.advance(24 * 3_600_000 + 1);
    try {
      const expired = await sessionCall(session);
      expect((await expired.json()).error).toBe("session_invalid");
    } finally {
      clock.advance(-(24 * 3_600_000 + 1));
    }
    expect(await balanceOf(session.sessionId)).toBe("1.000000");
  });

  it("20 concurrent calls with balance for 19: exactly one insufficient_balance, and a zero balance", async () => {
    const { session } = await openSession("1.90");
    const callsBefore = plugin.calls.length;
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => sessionCall(session, { plugin: "stt", audio: "UklGRg==" })),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 200)).toHaveLength(19);
    const refused = answers.filter((r) => r.status === 402);
    expect(refused).toHaveLength(1);
    expect(await refused[0].json()).toEqual({
      error: "insufficient_balance",
      message: expect.any(String),
      session: { remaining: "0.00", cost: "0.10" },
    });
    expect(await balanceOf(session.sessionId)).toBe("0.000000");
    expect(plugin.calls.length).toBe(callsBefore + 19);
    const receipts = new Set(
      answers.filter((r) => r.status === 200).map((r) => r.headers.get("payment-receipt")),
    );
    expect(receipts.size).toBe(19);
  });

  /** A gateway call billed to `session` whose `agent` plugin is `upstreamUrl`. */
  function callPluginAt(
    upstreamUrl: string,
    session: { sessionId: string; walletAddress: string },
    headers: Record<string, string>,
  ) {
    const ctx = { ...webContext(), config: { ...config, GATEWAY_PLUGIN_AGENT_URL: upstreamUrl } };
    const request = makeRequest({
      method: "POST",
      path: "/api/v1/gateway",
      json: HI,
      headers: {
        "x-payment-method": "session",
        "x-session-id": session.sessionId,
        "x-wallet-address": session.walletAddress,
        ...headers,
      },
    });
    return handleGatewayCall(ctx, request);
  }
  const answerKept = async (voucher: string | null) => {
    const result = await webContext().db.execute<{ status: number | null }>(
      sql`select response_status as status from payment_session_vouchers where id = ${voucher}`,
    );
    return result.rows[0]?.status ?? null;
  };
  async function expectNotKept(replay: Response, first: { voucher: string | null; status: number }) {
    expect(replay.status).toBe(409);
    expect(await replay.json()).toEqual({
      error: "idempotency_answer_not_kept",
      message: expect.stringContaining(`answered ${first.status} and paid once`),
    });
    expect(replay.headers.get("payment-receipt")).toBe(first.voucher);
    expect(replay.headers.get("x-session-remaining")).toBe("0.95");
  }

  it("a replay of a key whose answer was over 1 MB: 409 idempotency_answer_not_kept, paid once, not called again", async () => {
    const { session } = await openSession("1.00");
    const big = JSON.stringify({ text: "x".repeat(MAX_STORED_ANSWER_BYTES + 1) });
    const upstream = await startFakeUpstream((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(big);
    });
    try {
      const first = await callPluginAt(upstream.url, session, { "idempotency-key": "big" });
      expect(first.status).toBe(200);
      expect(await first.text()).toBe(big);
      const voucher = first.headers.get("payment-receipt");
      expect(voucher).toBe(`session:${session.sessionId}:1`);
      const replay = await callPluginAt(upstream.url, session, { "idempotency-key": "big" });
      await expectNotKept(replay, { voucher, status: 200 });
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await upstream.close();
    }
    expect(await balanceOf(session.sessionId)).toBe("0.950000");
  });

  it("a replay of a key whose stream broke mid-way: 409 idempotency_answer_not_kept", async () => {
    const { session } = await openSession("1.00");
    let breakIt = () => {};
    const broken = new Promise<void>((resolve) => {
      breakIt = resolve;
    });
    const upstream = await startFakeUpstream(async (_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"n":1}\n\n');
      await broken;
      res.socket?.destroy();
    });
    const headers = { "idempotency-key": "broken", accept: "text/event-stream" };
    try {
      const first = await callPluginAt(upstream.url, session, headers);
      expect(first.status).toBe(200);
      const voucher = first.headers.get("payment-receipt");
      const reader = (first.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: {"n":1}\n\n');
      // Still streaming: a replay is told to wait.
      const early = await callPluginAt(upstream.url, session, headers).catch((err: unknown) => err);
      expect(early).toMatchObject({ status: 409, code: "idempotency_in_progress" });
      breakIt();
      await expect(reader.read()).rejects.toThrow();
      await expect.poll(() => answerKept(voucher)).toBe(200);
      const replay = await callPluginAt(upstream.url, session, headers);
      await expectNotKept(replay, { voucher, status: 200 });
      expect(upstream.requests).toHaveLength(1);
    } finally {
      await upstream.close();
    }
  });

  it("a replay of a key whose stream the caller gave up: 409 idempotency_answer_not_kept", async () => {
    const { session } = await openSession("1.00");
    const script = plugin.streamChunks(['data: {"n":1}\n\n', "data: [DONE]\n\n"]);
    const headers = { "idempotency-key": "abandoned", accept: "text/event-stream" };
    const first = await sessionCall(session, HI, headers);
    expect(first.status).toBe(200);
    const voucher = first.headers.get("payment-receipt");
    const reader = (first.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    // Giving up ends the upstream stream once its pending chunk comes.
    const cancelled = reader.cancel();
    script.release();
    await cancelled;
    await expect.poll(() => answerKept(voucher)).toBe(200);
    const replay = await sessionCall(session, HI, headers);
    await expectNotKept(replay, { voucher, status: 200 });
  });

  it("a key whose first call never recorded an answer (its process stopped): in progress for 15 minutes, then 409 idempotency_answer_not_kept", async () => {
    const { session } = await openSession("1.00");
    // What a process that stopped between the debit and the answer leaves: a voucher with no answer.
    const first = await debitPaymentSession(webContext().db, {
      sessionId: session.sessionId,
      wallet: session.walletAddress,
      micros: usdToMicros("0.05"),
      pluginId: "agent",
      idempotencyKey: "orphaned",
      now: clock.now(),
    });
    const headers = { "idempotency-key": "orphaned" };
    const callsBefore = plugin.calls.length;
    clock.advance(ANSWER_LEASE_MS - 1);
    try {
      const early = await sessionCall(session, HI, headers);
      expect(early.status).toBe(409);
      expect((await early.json()).error).toBe("idempotency_in_progress");
      clock.advance(1);
      const replay = await sessionCall(session, HI, headers);
      expect(replay.status).toBe(409);
      expect(await replay.json()).toEqual({
        error: "idempotency_answer_not_kept",
        message: expect.stringContaining("no answer was recorded for it within 15 minutes"),
      });
      expect(replay.headers.get("payment-receipt")).toBe(first.voucher);
      expect(replay.headers.get("x-session-remaining")).toBe("0.95");
    } finally {
      clock.advance(-ANSWER_LEASE_MS);
    }
    expect(plugin.calls.length).toBe(callsBefore);
    expect(await balanceOf(session.sessionId)).toBe("0.950000");
  });

  it("a failing voucher insert debits nothing: 402 voucher_failed, no plugin call", async () => {
    const { session } = await openSession("1.00");
    // The next voucher's number is taken already, so recording it fails.
    await webContext().db.insert(paymentSessionVouchers).values({
      id: "pre-existing",
      sessionId: session.sessionId,
      nonce: 1,
      amountUsd: "0",
      pluginId: "agent",
    });
    const callsBefore = plugin.calls.length;
    const res = await sessionCall(session);
    expect(res.status).toBe(402);
    expect(await res.json()).toEqual({
      error: "voucher_failed",
      message: "the voucher could not be recorded; nothing was debited",
    });
    expect(await balanceOf(session.sessionId)).toBe("1.000000");
    expect(plugin.calls.length).toBe(callsBefore);
  });

  it("gives the debit back when the plugin fails, passing its status through", async () => {
    const { session } = await openSession("1.00");
    plugin.failWith(500);
    try {
      const res = await sessionCall(session, HI, { "idempotency-key": "retry-me" });
      expect(res.status).toBe(500);
      expect(res.headers.get("x-session-remaining")).toBe("1.00");
    } finally {
      plugin.failWith(null);
    }
    expect(await balanceOf(session.sessionId)).toBe("1.000000");
    const [voucher] = await webContext()
      .db.select()
      .from(paymentSessionVouchers)
      .where(eq(paymentSessionVouchers.sessionId, session.sessionId));
    expect(voucher.refundedAt).not.toBeNull();
    // The key is free again: the retry is a new, paid call.
    const retry = await sessionCall(session, HI, { "idempotency-key": "retry-me" });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("payment-receipt")).toBe(`session:${session.sessionId}:2`);
    expect(await balanceOf(session.sessionId)).toBe("0.950000");
  });

  it("keeps the debit when the plugin had the call but did not answer in time: 504, and a replay is 409", async () => {
    const { session } = await openSession("1.00");
    // Receives the whole call, never answers; the gateway's timeout ends it. The provider behind a plugin may
    // have spent the tokens by then, so the call stays paid.
    const hung = await startFakeUpstream(() => new Promise<void>(() => {}));
    const ctx = {
      ...webContext(),
      config: { ...config, GATEWAY_PLUGIN_AGENT_URL: hung.url, GATEWAY_UPSTREAM_TIMEOUT_MS: 200 },
    };
    const send = () =>
      handleGatewayCall(
        ctx,
        makeRequest(sessionCallRequest(session, HI, { "idempotency-key": "slow-1" })),
      ).catch((err: unknown) => err);
    try {
      const failure = await send();
      expect(failure).toMatchObject({
        status: 504,
        code: "upstream_timeout",
        message:
          'plugin "agent" did not answer within 0.2 s; the call stays paid: the plugin had the request and ' +
          "may have done the work",
      });
      expect(hung.requests.map((r) => JSON.parse(r.body.toString()))).toEqual([{ ...HI, max_tokens: 4096 }]);
      expect(await balanceOf(session.sessionId)).toBe("0.950000");
      const [voucher] = await webContext()
        .db.select()
        .from(paymentSessionVouchers)
        .where(eq(paymentSessionVouchers.sessionId, session.sessionId));
      expect(voucher).toMatchObject({ refundedAt: null, responseStatus: 504 });
      // The same key again: told it was paid once without an answer kept; neither charged nor sent again.
      const replay = (await send()) as Response;
      expect(replay.status).toBe(409);
      expect((await replay.json()).error).toBe("idempotency_answer_not_kept");
      expect(hung.requests).toHaveLength(1);
      expect(await balanceOf(session.sessionId)).toBe("0.950000");
    } finally {
      await hung.close();
    }
  });

  it("gives the debit back when the plugin was never reached (nothing listens): 502", async () => {
    const { session } = await openSession("1.00");
    const closed = await startFakeUpstream(() => undefined);
    await closed.close();
    const ctx = { ...webContext(), config: { ...config, GATEWAY_PLUGIN_AGENT_URL: closed.url } };
    const failure = await handleGatewayCall(ctx, makeRequest(sessionCallRequest(session))).catch(
      (err: unknown) => err,
    );
    expect(failure).toMatchObject({
      status: 502,
      code: "upstream_unreachable",
      message: 'plugin "agent" could not be reached: connection refused (ECONNREFUSED)',
    });
    expect(await balanceOf(session.sessionId)).toBe("1.000000");
  });
});

describe("debits of a busy session go together (one statement for the calls that wait)", () => {
  const debit = (
    sessionId: string,
    wallet: string,
    usd: string | bigint,
    idempotencyKey: string | null = null,
    now: Date = clock.now(),
  ) =>
    debitPaymentSession(webContext().db, {
      sessionId,
      wallet,
      micros: typeof usd === "bigint" ? usd : usdToMicros(usd),
      pluginId: "agent",
      idempotencyKey,
      now,
    }).then(
      (result) => ({ voucher: result.voucher, remaining: microsToUsd(result.remaining) }),
      (err: HttpError) => ({ error: err.code, status: err.status }),
    );
  const statements = async () => {
    const [metric] = (await sessionDebitBatch.get()).values.filter((v) => v.metricName?.endsWith("_count"));
    return metric?.value ?? 0;
  };

  it("debits each call exactly as alone, in arrival order: a later cheaper call still fits", async () => {
    const { session } = await openSession("1.00");
    const wallet = session.walletAddress;
    const before = await statements();
    const results = await Promise.all(
      ["0.50", "0.60", "0.30", "0.20"].map((usd) => debit(session.sessionId, wallet, usd)),
    );
    expect(results).toEqual([
      { voucher: `session:${session.sessionId}:1`, remaining: "0.50" },
      { error: "insufficient_balance", status: 402 },
      { voucher: `session:${session.sessionId}:2`, remaining: "0.20" },
      { voucher: `session:${session.sessionId}:3`, remaining: "0.00" },
    ]);
    // The first went at once; the three that arrived meanwhile went in one statement.
    expect((await statements()) - before).toBe(2);
    expect(await balanceOf(session.sessionId)).toBe("0.000000");
  });

  it("20 calls at once take fewer statements than calls, with exact vouchers and balance", async () => {
    const { session } = await openSession("1.00");
    const before = await statements();
    const results = await Promise.all(
      Array.from({ length: 20 }, () => debit(session.sessionId, session.walletAddress, "0.05")),
    );
    expect(new Set(results.map((r) => ("voucher" in r ? r.voucher : r.error))).size).toBe(20);
    expect((await statements()) - before).toBeLessThan(20);
    expect(await balanceOf(session.sessionId)).toBe("0.000000");
  });

  it("one Idempotency-Key sent three times at once is debited once; the others wait for its answer (409)", async () => {
    const { session } = await openSession("1.00");
    const results = await Promise.all(
      [1, 2, 3].map(() => debit(session.sessionId, session.walletAddress, "0.05", "same-key")),
    );
    expect(results.filter((r) => "voucher" in r)).toEqual([
      { voucher: `session:${session.sessionId}:1`, remaining: "0.95" },
    ]);
    expect(results.filter((r) => "error" in r)).toEqual([
      { error: "idempotency_in_progress", status: 409 },
      { error: "idempotency_in_progress", status: 409 },
    ]);
    expect(await balanceOf(session.sessionId)).toBe("0.950000");
  });

  it("an unknown session or another wallet in a batch is session_invalid, debiting nothing", async () => {
    const { session } = await openSession("1.00");
    const results = await Promise.all([
      debit(session.sessionId, session.walletAddress, "0.05"),
      debit(session.sessionId, newAccount().address, "0.05"),
      debit(session.sessionId, session.walletAddress, "0.05"),
    ]);
    expect(results.map((r) => ("error" in r ? r.error : "debited"))).toEqual([
      "debited",
      "session_invalid",
      "debited",
    ]);
    expect(await balanceOf(session.sessionId)).toBe("0.900000");
  });

  it("checks each call's expiry at its own arrival: in one batch, a call before expiry is debited, one after is not", async () => {
    const { session } = await openSession("1.00");
    const expiresAt = Date.parse(session.expiresAt);
    const before = await statements();
    const results = await Promise.all([
      debit(session.sessionId, session.walletAddress, "0.05", null, new Date(expiresAt - 1000)),
      // These two arrive while the first is in flight, so they go together in one statement.
      debit(session.sessionId, session.walletAddress, "0.05", null, new Date(expiresAt - 1)),
      debit(session.sessionId, session.walletAddress, "0.05", null, new Date(expiresAt + 1)),
    ]);
    expect((await statements()) - before).toBe(2);
    expect(results).toEqual([
      { voucher: `session:${session.sessionId}:1`, remaining: "0.95" },
      { voucher: `session:${session.sessionId}:2`, remaining: "0.90" },
      { error: "session_invalid", status: 402 },
    ]);
    expect(await balanceOf(session.sessionId)).toBe("0.900000");
  });

  it("a zero or negative amount debits nothing (voucher_failed), alone or in a batch", async () => {
    const { session } = await openSession("1.00");
    const results = await Promise.all([
      debit(session.sessionId, session.walletAddress, "0.05"),
      debit(session.sessionId, session.walletAddress, -50_000n),
      debit(session.sessionId, session.walletAddress, "0"),
      debit(session.sessionId, session.walletAddress, "0.05"),
    ]);
    expect(results).toEqual([
      { voucher: `session:${session.sessionId}:1`, remaining: "0.95" },
      { error: "voucher_failed", status: 402 },
      { error: "voucher_failed", status: 402 },
      { voucher: `session:${session.sessionId}:2`, remaining: "0.90" },
    ]);
    expect(await balanceOf(session.sessionId)).toBe("0.900000");
  });
});

describe("a plugin registered with auth (tts here) needs a verified caller", () => {
  const tts = (headers: Record<string, string>) =>
    call(POST, { method: "POST", path: "/api/v1/gateway", json: { plugin: "tts", text: "hi" }, headers });

  it("401 for a payment session that is unknown, another wallet's, expired, or without its wallet header", async () => {
    const { session } = await openSession("1.00");
    const callsBefore = plugin.calls.length;
    const session401 = (sessionId: string, wallet: string | null) =>
      tts({
        "x-payment-method": "session",
        "x-session-id": sessionId,
        ...(wallet === null ? {} : { "x-wallet-address": wallet }),
      });
    await expectUnauthorized(await session401("ps_unknown", session.walletAddress));
    await expectUnauthorized(await session401(session.sessionId, newAccount().address));
    await expectUnauthorized(await session401(session.sessionId, null));
    clock.advance(24 * 3_600_000 + 1);
    try {
      await expectUnauthorized(await session401(session.sessionId, session.walletAddress));
    } finally {
      clock.advance(-(24 * 3_600_000 + 1));
    }
    await webContext().db.execute(
      sql`update payment_sessions set status = 'closed' where id = ${session.sessionId}`,
    );
    await expectUnauthorized(await session401(session.sessionId, session.walletAddress));
    expect(await balanceOf(session.sessionId)).toBe("1.000000");
    expect(plugin.calls.length).toBe(callsBefore);
  });
});
