/**
 * The v1 gateway and the payment-session reads, served by web/server.ts ahead of Next.js
 * (lib/infra/http/ahead-of-next.ts), answer exactly as Next's handling of the same route files: two real web
 * servers on one database, one as it runs by default and one with GATEWAY_AHEAD_OF_NEXT=false (every request
 * through Next, as before). Each request goes to both; status, every header line in order and the body must
 * be the same, apart from what differs between any two answers (`Date`, the script nonce) and between the two
 * sessions each server bills (their ids). Paths the fast path does not serve still reach Next.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { metricValue } from "@svc/common/testing";
import { paymentSessions } from "@svc/db/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postWithNodeHttp } from "../../../common/testing/oversized-post";
import {
  RUNNING_DATA_ENCRYPTION_KEY,
  RUNNING_HMAC_SECRET,
  RUNNING_INTERNAL_API_KEY,
  RUNNING_SESSION_SECRET,
  type RunningServer,
  startRunningServer,
  useRunningServers,
} from "../../../common/testing/running-servers";
import { createApiKey } from "../apikeys/service";
import { signedInUser, useRunningWebContext, webContext } from "../infra/testing";
import { HI, readHeldStream, startFakePlugin } from "./test-support";

const plugin = await startFakePlugin();
/** Both servers think they are the same site, so their policies and origin checks read alike. */
const PUBLIC_URL = "http://platform.test";
const ENV = {
  PUBLIC_URL,
  GATEWAY_PLUGIN_AGENT_URL: plugin.url,
  GATEWAY_PLUGIN_GENERATE_TEXT_URL: plugin.url,
  // Nothing listens there: the call is refused before the upstream had it (502, paid back).
  GATEWAY_PLUGIN_TTS_URL: "http://127.0.0.1:9/tts",
};
useRunningWebContext(ENV);
const servers = useRunningServers({ web: ENV });
let throughNext: RunningServer | undefined;
let dataDir: string | undefined;
beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-ahead-of-next-"));
  throughNext = await startRunningServer("web", {
    DATABASE_URL: process.env.DATABASE_URL as string,
    INTERNAL_API_KEY: RUNNING_INTERNAL_API_KEY,
    HMAC_SECRET: RUNNING_HMAC_SECRET,
    DATA_ENCRYPTION_KEY: RUNNING_DATA_ENCRYPTION_KEY,
    SESSION_SECRET: RUNNING_SESSION_SECRET,
    DATA_DIR: dataDir,
    ...ENV,
    GATEWAY_AHEAD_OF_NEXT: "false",
  });
}, 15 * 60_000);
afterAll(async () => {
  await throughNext?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
  await plugin.close();
});

const WALLET = "0x00000000000000000000000000000000000000a1";
/** One session per server, with the same balance, so their answers differ only by the id. */
const SESSIONS = { ahead: "ps_aheadofnext000000000000000a", next: "ps_aheadofnext000000000000000b" };
const POOR = { ahead: "ps_aheadofnextpoor00000000000a", next: "ps_aheadofnextpoor00000000000b" };
type Side = keyof typeof SESSIONS;

beforeAll(async () => {
  const expiresAt = new Date(Date.now() + 3_600_000);
  for (const side of ["ahead", "next"] as const) {
    await webContext()
      .db.insert(paymentSessions)
      .values([
        { id: SESSIONS[side], walletAddress: WALLET, balanceUsd: "10", expiresAt },
        { id: POOR[side], walletAddress: WALLET, balanceUsd: "0.01", expiresAt },
      ]);
  }
});

interface Answer {
  status: number;
  /** Every header line as sent, names in lower case, in order. */
  headers: [string, string][];
  body: string;
}

interface Exchange {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** One request with node:http (the header lines as they came, duplicates kept). */
function exchange(base: string, { method = "POST", path = "/api/v1/gateway", headers = {}, body }: Exchange) {
  return new Promise<Answer>((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("error", reject);
      res.on("end", () => {
        const headers: [string, string][] = [];
        for (let i = 0; i < res.rawHeaders.length; i += 2) {
          headers.push([res.rawHeaders[i].toLowerCase(), res.rawHeaders[i + 1]]);
        }
        resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks).toString("utf8") });
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** What may differ between two equal answers: the date, the nonce, the session of each side. */
function comparable(answer: Answer, side: Side) {
  const own = (text: string) =>
    text.replaceAll(SESSIONS[side], "<session>").replaceAll(POOR[side], "<poor session>");
  return {
    status: answer.status,
    headers: answer.headers
      .filter(([name]) => name !== "date")
      .map(([name, value]) => [name, own(value.replace(/'nonce-[^']+'/, "'nonce-…'"))]),
    body: own(answer.body),
  };
}

/** Sends the request (built for each side's session) to both servers; their answers must be the same. */
async function bothAnswer(build: (side: Side) => Exchange) {
  const [ahead, next] = await Promise.all([
    exchange(servers.web.url, build("ahead")),
    exchange((throughNext as RunningServer).url, build("next")),
  ]);
  expect(comparable(ahead, "ahead")).toEqual(comparable(next, "next"));
  return ahead;
}

const json = { "content-type": "application/json" };
const billed = (side: Side, sessions = SESSIONS) => ({
  ...json,
  "x-payment-method": "session",
  "x-session-id": sessions[side],
  "x-wallet-address": WALLET,
});
const header = (answer: Answer, name: string) => answer.headers.find(([n]) => n === name)?.[1];

describe("POST /api/v1/gateway ahead of Next answers as through Next", () => {
  it("a session-billed call: the plugin's answer, receipt, remaining balance, security headers, chunked", async () => {
    const answer = await bothAnswer((side) => ({ headers: billed(side), body: JSON.stringify(HI) }));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body)).toEqual({ plugin: "agent", echo: { ...HI, max_tokens: 4096 } });
    expect(header(answer, "payment-receipt")).toBe(`session:${SESSIONS.ahead}:1`);
    expect(header(answer, "x-session-remaining")).toBe("9.95");
    expect(header(answer, "x-frame-options")).toBe("DENY");
    expect(header(answer, "content-security-policy")).toMatch(/frame-ancestors 'none'/);
    expect(header(answer, "transfer-encoding")).toBe("chunked");
    expect(header(answer, "content-length")).toBeUndefined();
    // The same call with an Idempotency-Key, then its replay (answered from the voucher, not the plugin).
    for (let i = 0; i < 2; i++) {
      await bothAnswer((side) => ({
        headers: { ...billed(side), "idempotency-key": "key-1" },
        body: JSON.stringify(HI),
      }));
    }
  });

  it("each refusal: its status, error body and headers", async () => {
    const cases: ((side: Side) => Exchange)[] = [
      // validation
      (side) => ({ headers: billed(side), body: "{not json" }),
      (side) => ({ headers: { ...billed(side), "content-type": "text/plain" }, body: JSON.stringify(HI) }),
      (side) => ({ headers: billed(side), body: JSON.stringify([1]) }),
      (side) => ({ headers: billed(side), body: JSON.stringify({ ...HI, plugin: "nope" }) }),
      (side) => ({ headers: billed(side), body: JSON.stringify({ ...HI, max_tokens: 1e6 }) }),
      (side) => ({ headers: billed(side), body: JSON.stringify({ ...HI, unknown_field: 1 }) }),
      (side) => ({ headers: billed(side), body: JSON.stringify({ messages: [] }) }),
      (side) => ({ headers: { ...billed(side), "x-payment-method": "cash" }, body: JSON.stringify(HI) }),
      // payment
      () => ({ headers: { ...json, "x-payment-method": "session" }, body: JSON.stringify(HI) }),
      (side) => ({ headers: { ...billed(side), "x-session-id": "ps_unknown" }, body: JSON.stringify(HI) }),
      (side) => ({ headers: billed(side, POOR), body: JSON.stringify({ ...HI, plugin: "agent" }) }),
      () => ({ headers: json, body: JSON.stringify(HI) }),
      () => ({ headers: { ...json, "x-payment-method": "mpp" }, body: JSON.stringify(HI) }),
      // auth and origin
      () => ({ headers: { ...json, authorization: "Bearer svc_unknownkey" }, body: JSON.stringify(HI) }),
      (side) => ({ headers: { ...billed(side), origin: "https://elsewhere.example" }, body: "{}" }),
      (side) => ({ headers: { ...billed(side), "sec-fetch-site": "cross-site" }, body: "{}" }),
      // the upstream refused the connection: 502, the debit given back
      (side) => ({ headers: billed(side), body: JSON.stringify({ text: "hi", plugin: "tts" }) }),
    ];
    const statuses: number[] = [];
    for (const build of cases) statuses.push((await bothAnswer(build)).status);
    expect(statuses).toEqual([
      400, 400, 400, 400, 400, 400, 400, 400, 402, 402, 402, 402, 503, 401, 403, 403, 502,
    ]);
  });

  it("API keys: a key without billing:write is 403 insufficient_scope, one with it pays by card", async () => {
    const { user } = await signedInUser();
    const reader = await createApiKey(webContext(), user.id, { name: "reader", scopes: ["files:read"] });
    const writer = await createApiKey(webContext(), user.id, { name: "writer", scopes: ["billing:write"] });
    const refused = await bothAnswer(() => ({
      headers: { ...json, authorization: `Bearer ${reader.key}` },
      body: JSON.stringify(HI),
    }));
    expect(refused.status).toBe(403);
    expect(header(refused, "www-authenticate")).toBe(
      'Bearer error="insufficient_scope", scope="billing:write"',
    );
    // No card credit: the 402 `payment_required` with the checkout offer.
    const unpaid = await bothAnswer(() => ({
      headers: { ...json, authorization: `Bearer ${writer.key}` },
      body: JSON.stringify(HI),
    }));
    expect(unpaid.status).toBe(402);
  });

  it("a body over 1 MB is 413 before anything is charged, with Content-Length or chunked", async () => {
    const [ahead, next] = await Promise.all([
      exchange(servers.web.url, { headers: billed("ahead"), body: `{"x":"${"a".repeat(1024 * 1024)}"}` }),
      exchange((throughNext as RunningServer).url, {
        headers: billed("next"),
        body: `{"x":"${"a".repeat(1024 * 1024)}"}`,
      }),
    ]);
    expect(comparable(ahead, "ahead")).toEqual(comparable(next, "next"));
    expect(ahead.status).toBe(413);
    for (const chunked of [false, true]) {
      const sent = await Promise.all(
        [servers.web.url, (throughNext as RunningServer).url].map((base, i) =>
          postWithNodeHttp(`${base}/api/v1/gateway`, {
            bytes: 2 * 1024 * 1024,
            chunked,
            headers: billed(i === 0 ? "ahead" : "next"),
          }),
        ),
      );
      expect(sent[0]).toEqual(sent[1]);
      expect(sent[0]).toMatchObject({ status: 413, complete: true, error: null });
      expect(JSON.parse(sent[0].body)).toEqual({
        error: "payload_too_large",
        message: "request body is too large",
      });
    }
    // Nothing was debited by the refused calls: one paid call so far (and its idempotent twin).
    const balances = await webContext().db.select().from(paymentSessions);
    const balance = (id: string) => balances.find((s) => s.id === id)?.balanceUsd;
    expect(balance(SESSIONS.ahead)).toBe(balance(SESSIONS.next));
  });

  it("streams the plugin's events as they come: the first before the second is sent", async () => {
    for (const side of ["ahead", "next"] as const) {
      const base = side === "ahead" ? servers.web.url : (throughNext as RunningServer).url;
      const chunks = ['data: {"n":1}\n\n', 'data: {"n":2}\n\n'];
      const script = plugin.streamChunks(chunks);
      const res = await fetch(`${base}/api/v1/gateway`, {
        method: "POST",
        headers: { ...billed(side), accept: "text/event-stream" },
        body: JSON.stringify({ ...HI, plugin: "generate-text" }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(res.headers.get("cache-control")).toBe("no-cache, no-transform");
      expect(res.headers.get("x-accel-buffering")).toBe("no");
      expect(await readHeldStream(res, script)).toEqual({ first: chunks[0], rest: chunks[1] });
    }
  });

  it("counts its answers in the server's metrics as Next's route does", async () => {
    const scrape = async (base: string) => (await fetch(`${base}/metrics`)).text();
    const [ahead, next] = await Promise.all([
      scrape(servers.web.url),
      scrape((throughNext as RunningServer).url),
    ]);
    for (const labels of [
      { method: "POST", route: "/api/v1/gateway", status: "200" },
      { method: "POST", route: "/api/v1/gateway", status: "400" },
      { method: "POST", route: "/api/v1/gateway", status: "413" },
      { method: "GET", route: "/api/wallet/sessions/[id]", status: "200" },
    ]) {
      expect(metricValue(ahead, "http_requests_total", labels)).toBe(
        metricValue(next, "http_requests_total", labels),
      );
    }
    expect(
      metricValue(ahead, "gateway_payments_total", { method: "session", outcome: "paid" }),
    ).toBeGreaterThan(0);
    expect(metricValue(ahead, "gateway_payments_total")).toBe(metricValue(next, "gateway_payments_total"));
  });
});

describe("GET /api/wallet/sessions/:id ahead of Next answers as through Next", () => {
  it("the session, 404 for another wallet, 400 without the wallet header", async () => {
    const found = await bothAnswer((side) => ({
      method: "GET",
      path: `/api/wallet/sessions/${SESSIONS[side]}`,
      headers: { "x-wallet-address": WALLET },
    }));
    expect(found.status).toBe(200);
    expect(JSON.parse(found.body)).toMatchObject({ sessionId: SESSIONS.ahead, walletAddress: WALLET });
    expect(header(found, "cache-control")).toBe("no-store");
    const other = await bothAnswer((side) => ({
      method: "GET",
      path: `/api/wallet/sessions/${SESSIONS[side]}`,
      headers: { "x-wallet-address": "0x00000000000000000000000000000000000000b2" },
    }));
    expect(other.status).toBe(404);
    const bare = await bothAnswer((side) => ({
      method: "GET",
      path: `/api/wallet/sessions/${SESSIONS[side]}`,
    }));
    expect(bare.status).toBe(400);
  });
});

describe("what is not served ahead of Next still reaches Next", () => {
  it("other methods, paths and pages answer as before", async () => {
    const cases: [Exchange, number][] = [
      [{ method: "GET" }, 405],
      [{ method: "OPTIONS" }, 204],
      [{ path: "/api/v1/gateway/", headers: json, body: "{}" }, 308],
      [{ method: "DELETE", path: `/api/wallet/sessions/${SESSIONS.ahead}` }, 405],
      [
        { method: "GET", path: "/api/wallet/sessions/ps%5Fodd", headers: { "x-wallet-address": WALLET } },
        404,
      ],
      [{ method: "GET", path: "/api/no-such-route" }, 404],
    ];
    for (const [sent, status] of cases) {
      const answer = await bothAnswer(() => sent);
      expect(answer.status, `${sent.method} ${sent.path}`).toBe(status);
    }
    // Another route (its body tells the time and the process's memory, so only its status is compared).
    expect((await exchange(servers.web.url, { method: "GET", path: "/api/health" })).status).toBe(200);
    // A page: Next renders it, with the nonce of this answer on its scripts.
    const page = await exchange(servers.web.url, { method: "GET", path: "/login" });
    expect(page.status).toBe(200);
    expect(header(page, "content-type")).toMatch(/^text\/html/);
    const nonce = /'nonce-([^']+)'/.exec(header(page, "content-security-policy") ?? "")?.[1];
    expect(page.body).toContain(`nonce="${nonce}"`);
  });
});
