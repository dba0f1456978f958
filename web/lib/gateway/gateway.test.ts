import { cardCredits } from "@svc/db/schema";
import { eq, sql } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/gateway/route";
import {
  type CookieJar,
  call,
  makeRequest,
  signedInUser,
  useWebTestContext,
  webContext,
} from "../infra/testing";
import { cardCreditOf } from "./billing/card";
import { selectPaymentMethod } from "./payment";
import { handleGatewayCall } from "./service";
import { HI, startFakePlugin } from "./test-support";

const plugin = await startFakePlugin();
const streaming = await startFakePlugin();
useWebTestContext({
  GATEWAY_PLUGIN_AGENT_URL: plugin.url,
  GATEWAY_PLUGIN_GENERATE_TEXT_URL: streaming.url,
  GATEWAY_PLUGIN_TTS_URL: plugin.url,
  // stt: no upstream
  GATEWAY_AUTH_PLUGINS: "tts",
});
afterAll(async () => {
  await plugin.close();
  await streaming.close();
});

async function withCredit(usd: string) {
  const signed = await signedInUser();
  await webContext().db.insert(cardCredits).values({ userId: signed.user.id, balanceUsd: usd });
  return signed;
}

function gateway(json: unknown, headers: Record<string, string> = {}, jar?: CookieJar) {
  return call(POST, { method: "POST", path: "/api/v1/gateway", json, headers, jar });
}

describe("payment method selection", () => {
  it("follows the spec's order: X-Payment-Method, else Authorization: Payment, else card", () => {
    expect(selectPaymentMethod(new Headers())).toBe("stripe");
    expect(selectPaymentMethod(new Headers({ authorization: "Payment eyJ4Ijox" }))).toBe("mpp");
    expect(selectPaymentMethod(new Headers({ authorization: "Bearer x" }))).toBe("stripe");
    expect(
      selectPaymentMethod(new Headers({ "x-payment-method": "session", authorization: "Payment eyJ4" })),
    ).toBe("session");
    expect(
      selectPaymentMethod(new Headers({ "x-payment-method": "stripe", authorization: "Payment eyJ4" })),
    ).toBe("stripe");
    expect(selectPaymentMethod(new Headers({ "x-payment-method": "mpp" }))).toBe("mpp");
  });

  it("answers 400 for any other X-Payment-Method, calling nothing", async () => {
    const before = plugin.calls.length;
    const res = await gateway(HI, { "x-payment-method": "paypal" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "invalid_request",
      message: "X-Payment-Method must be stripe, mpp or session",
    });
    expect(plugin.calls.length).toBe(before);
  });
});

describe("POST /api/v1/gateway: card credit", () => {
  it("402 payment_required without a session: the card block with the checkout URL, no plugin call", async () => {
    const before = plugin.calls.length;
    const res = await gateway({ messages: [{ role: "user", content: "hi" }] });
    expect(res.status).toBe(402);
    expect(res.headers.get("cache-control")).toBe("no-store");
    const body = await res.json();
    expect(body).toEqual({
      error: "payment_required",
      message: expect.any(String),
      stripe: { checkoutUrl: "/api/v1/payments/card/create?plugin=agent", amount: "0.05", currency: "usd" },
    });
    expect(plugin.calls.length).toBe(before);
  });

  it("serves a signed-in user whose credit covers the price, debiting it once, passing the answer through", async () => {
    const { user, jar } = await withCredit("0.12");
    const res = await gateway(
      { plugin: "agent", messages: [{ role: "user", content: "hi" }], temperature: 0 },
      {},
      jar,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-plugin-id")).toBe("agent");
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({
      plugin: "agent",
      echo: { messages: [{ role: "user", content: "hi" }], temperature: 0, max_tokens: 4096 },
    });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(70_000n);
  });

  it("402 when the credit does not cover the price; nothing debited, nothing called", async () => {
    const { user, jar } = await withCredit("0.04");
    const before = plugin.calls.length;
    const res = await gateway(HI, {}, jar);
    expect(res.status).toBe(402);
    const body = await res.json();
    expect(body.error).toBe("payment_required");
    expect(body.message).toContain("0.04");
    expect(body.stripe.checkoutUrl).toBe("/api/v1/payments/card/create?plugin=agent");
    expect(await cardCreditOf(webContext().db, user.id)).toBe(40_000n);
    expect(plugin.calls.length).toBe(before);
  });

  it("debits atomically: 5 concurrent calls on credit for 3 serve exactly 3 and leave 0", async () => {
    const { user, jar } = await withCredit("0.15");
    const answers = await Promise.all(Array.from({ length: 5 }, () => gateway(HI, {}, jar)));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 402, 402]);
    expect(await cardCreditOf(webContext().db, user.id)).toBe(0n);
  });

  it("gives the credit back when the plugin fails with a 5xx, passing the status through", async () => {
    const { user, jar } = await withCredit("1.00");
    plugin.failWith(503);
    try {
      const res = await gateway(HI, {}, jar);
      expect(res.status).toBe(503);
      expect(await res.json()).toEqual({ error: "plugin failed" });
    } finally {
      plugin.failWith(null);
    }
    expect(await cardCreditOf(webContext().db, user.id)).toBe(1_000_000n);
  });

  it("keeps the credit when the plugin answers 504: its own upstream had the call and may have done the work", async () => {
    const { user, jar } = await withCredit("1.00");
    plugin.failWith(504);
    try {
      const res = await gateway(HI, {}, jar);
      expect(res.status).toBe(504);
      expect(await res.json()).toEqual({ error: "plugin failed" });
    } finally {
      plugin.failWith(null);
    }
    expect(await cardCreditOf(webContext().db, user.id)).toBe(950_000n);
  });
});

describe("POST /api/v1/gateway: plugins", () => {
  it("X-Plugin-Id overrides the body's plugin; the rest of the body is forwarded without `plugin`", async () => {
    const { jar } = await withCredit("1.00");
    const res = await gateway({ plugin: "tts", ...HI, max_tokens: 10 }, { "x-plugin-id": "agent" }, jar);
    expect(res.status).toBe(200);
    expect(res.headers.get("x-plugin-id")).toBe("agent");
    expect(plugin.calls.at(-1)?.body).toEqual({ ...HI, max_tokens: 10 });
    expect(plugin.calls.at(-1)?.headers["x-plugin-id"]).toBe("agent");
  });

  it("400 unknown_plugin, nothing charged", async () => {
    const { user, jar } = await withCredit("1.00");
    const res = await gateway({ plugin: "teleport" }, {}, jar);
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      error: "unknown_plugin",
      message: 'unknown plugin "teleport" (no pricing)',
    });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(1_000_000n);
  });

  it("502 no_plugin for a plugin without an upstream, nothing charged", async () => {
    const { user, jar } = await withCredit("1.00");
    const res = await gateway({ plugin: "stt" }, {}, jar);
    expect(res.status).toBe(502);
    expect(await res.json()).toEqual({
      error: "no_plugin",
      message: 'plugin "stt" has no upstream configured',
    });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(1_000_000n);
  });

  it("401 Unauthorized for a plugin registered with auth when the caller brings no credential", async () => {
    const res = await gateway({ plugin: "tts" });
    expect(res.status).toBe(401);
    expect((await res.json()).error).toBe("Unauthorized");
    const { jar } = await withCredit("1.00");
    const signedIn = await gateway({ plugin: "tts", text: "x" }, {}, jar);
    expect(signedIn.status).toBe(200);
  });

  it("400 for a Content-Type other than application/json, and for bad JSON", async () => {
    const text = await call(POST, {
      method: "POST",
      path: "/api/v1/gateway",
      body: "plugin=agent",
      headers: { "content-type": "text/plain" },
    });
    expect(text.status).toBe(400);
    expect(await text.json()).toEqual({
      error: "bad_content_type",
      message: "Content-Type must be application/json",
    });
    const bad = await call(POST, {
      method: "POST",
      path: "/api/v1/gateway",
      body: "{",
      headers: { "content-type": "application/json" },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toBe("invalid_json");
  });

  it("streams server-sent events chunk by chunk: the first arrives before the upstream wrote the second", async () => {
    const { jar } = await withCredit("1.00");
    const chunks = ['data: {"n":1}\n\n', 'data: {"n":2}\n\n', "data: [DONE]\n\n"];
    const script = streaming.streamChunks(chunks);
    const res = await gateway(
      { plugin: "generate-text", messages: [{ role: "user", content: "count" }] },
      { accept: "text/event-stream" },
      jar,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.headers.get("x-plugin-id")).toBe("generate-text");
    expect(streaming.calls.at(-1)?.body).toEqual({
      messages: [{ role: "user", content: "count" }],
      max_tokens: 1024,
      stream: true,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe(chunks[0]);
    // The upstream has written only the first chunk: the second is held until we release it.
    await script.written(1);
    script.release();
    const second = await reader.read();
    expect(decoder.decode(second.value)).toBe(chunks[1]);
    script.release();
    let rest = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value);
    }
    expect(rest).toBe(chunks[2]);
  });

  it("answers JSON from a streaming plugin when the caller did not ask for a stream", async () => {
    const { jar } = await withCredit("1.00");
    const res = await gateway({ plugin: "generate-text", ...HI }, {}, jar);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(streaming.calls.at(-1)?.body).toEqual({ ...HI, max_tokens: 1024 });
  });

  it("502 upstream_unreachable and the debit given back when the plugin cannot be reached", async () => {
    const { user, jar } = await withCredit("1.00");
    const closed = await startFakePlugin();
    await closed.close();
    const ctx = webContext();
    const config = { ...ctx.config, GATEWAY_PLUGIN_AGENT_URL: closed.url };
    const res = await handleGatewayCall(
      { ...ctx, config },
      makeRequest({ method: "POST", path: "/api/v1/gateway", json: HI, jar }),
    ).catch((err: { status: number; code: string }) => err);
    expect(res).toMatchObject({ status: 502, code: "upstream_unreachable" });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(1_000_000n);
  });

  it("500 internal in the gateway shape when the database fails, with no stack", async () => {
    const { jar } = await withCredit("1.00");
    const db = webContext().db;
    await db.execute(sql`alter table card_credits rename to card_credits_away`);
    try {
      const res = await gateway(HI, {}, jar);
      expect(res.status).toBe(500);
      const body = await res.json();
      expect(body).toEqual({
        error: "internal",
        message: "internal server error",
        requestId: expect.any(String),
      });
    } finally {
      await db.execute(sql`alter table card_credits_away rename to card_credits`);
    }
    const rows = await db.select().from(cardCredits).where(eq(cardCredits.balanceUsd, "1.000000"));
    expect(rows.length).toBeGreaterThan(0);
  });
});
