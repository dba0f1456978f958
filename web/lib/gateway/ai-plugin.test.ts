/**
 * The AI plugins' default upstream end to end: the gateway → the REAL backend's `POST /api/ai/gateway`
 * (internal key) → a loopback OpenAI-compatible provider; JSON and a stream, paid by card credit.
 */
import { startFakeAiProvider } from "@svc/common/testing";
import { cardCredits } from "@svc/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/gateway/route";
import { call, signedInUser, useWebTestContext, webContext } from "../infra/testing";
import { startTestBackend } from "../runtime/testing/backend";
import { cardCreditOf } from "./billing/card";

const INTERNAL_API_KEY = "gateway-internal-key-0123456789abcdef";
const provider = await startFakeAiProvider({ apiKey: "provider-key-0123" });
const backend = await startTestBackend({
  INTERNAL_API_KEY,
  HMAC_SECRET: "gateway-hmac-secret-0123456789abcdef",
  AI_PROVIDER_URL: provider.url,
  AI_PROVIDER_KEY: provider.apiKey,
  AI_DEFAULT_MODEL: "openai/gpt-4o-mini",
});
useWebTestContext({ BACKEND_URL: backend.url, INTERNAL_API_KEY });
afterAll(async () => {
  await backend.close();
  await provider.close();
});

async function withCredit() {
  const signed = await signedInUser();
  await webContext().db.insert(cardCredits).values({ userId: signed.user.id, balanceUsd: "1" });
  return signed;
}

describe("agent and generate-text without their own URL", () => {
  it("reach the platform's AI provider through the backend with the internal key, the default model", async () => {
    const { user, jar } = await withCredit();
    const res = await call(POST, {
      method: "POST",
      path: "/api/v1/gateway",
      json: { plugin: "generate-text", messages: [{ role: "user", content: "Hi?" }] },
      jar,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-plugin-id")).toBe("generate-text");
    expect((await res.json()).choices[0].message.content).toBe("Hello from the fake provider.");
    const relayed = backend.exchanges.at(-1);
    expect(relayed).toMatchObject({ method: "POST", path: "/api/ai/gateway", status: 200 });
    expect(relayed?.headers.authorization).toBe(`Bearer ${INTERNAL_API_KEY}`);
    expect(provider.requests.at(-1)?.body).toMatchObject({ model: "openai/gpt-4o-mini" });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(990_000n);
  });

  it("cap what one paid call may ask of the provider: over a cap or an unknown field is a 400, nothing charged or sent", async () => {
    const { user, jar } = await withCredit();
    const ask = (json: Record<string, unknown>) =>
      call(POST, { method: "POST", path: "/api/v1/gateway", json, jar });
    const hi = [{ role: "user", content: "Hi?" }];
    const sentBefore = provider.requests.length;
    const cases: [Record<string, unknown>, string][] = [
      // The review's call: a $0.01 price asking for 64 completions of 128,000 tokens each.
      [
        { plugin: "generate-text", messages: hi, max_tokens: 128_000, n: 64 },
        "max_tokens: must be at most 1024",
      ],
      [{ plugin: "generate-text", messages: hi, n: 64 }, "n: must be at most 1"],
      [{ plugin: "agent", messages: hi, max_tokens: 4097 }, "max_tokens: must be at most 4096"],
      [
        { plugin: "agent", messages: hi, max_completion_tokens: 100_000 },
        "max_completion_tokens: must be at most 4096",
      ],
      [
        { plugin: "generate-text", messages: hi, logit_bias: { "50256": 100 } },
        'logit_bias: not a field plugin "generate-text" takes (it takes messages, model, max_tokens, ' +
          "max_completion_tokens, n, temperature, top_p, stop, presence_penalty, frequency_penalty, seed, user, " +
          "response_format, tools, tool_choice, parallel_tool_calls, stream)",
      ],
      [
        { plugin: "generate-text", messages: [{ role: "user", content: "x".repeat(16_000) }] },
        'messages: the prompt (messages, tools and response_format as JSON) is 16030 characters; plugin "generate-text" takes at most 16000',
      ],
      [{ plugin: "agent" }, "messages: is required"],
    ];
    for (const [json, message] of cases) {
      const res = await ask(json);
      expect(res.status, message).toBe(400);
      // The gateway's callers write the JSON: the message names the key, which `field` carries too (an
      // unknown key is the body's own problem: no field).
      const field = message.includes(": not a field") ? undefined : message.slice(0, message.indexOf(":"));
      expect(await res.json()).toEqual({ error: "invalid_request", message, ...(field ? { field } : {}) });
    }
    expect(provider.requests.length).toBe(sentBefore);
    expect(await cardCreditOf(webContext().db, user.id)).toBe(1_000_000n);

    // Within the caps: the output limit reaches the provider, the plugin's cap when the caller left it out.
    expect((await ask({ plugin: "generate-text", messages: hi, n: 1, stream: false })).status).toBe(200);
    expect(provider.requests.at(-1)?.body).toMatchObject({ max_tokens: 1024, n: 1 });
    expect(provider.requests.at(-1)?.body).not.toHaveProperty("stream");
    expect((await ask({ plugin: "agent", messages: hi })).status).toBe(200);
    expect(provider.requests.at(-1)?.body).toMatchObject({ max_tokens: 4096 });
    expect((await ask({ plugin: "agent", messages: hi, max_tokens: 50 })).status).toBe(200);
    expect(provider.requests.at(-1)?.body).toMatchObject({ max_tokens: 50 });
    expect(await cardCreditOf(webContext().db, user.id)).toBe(1_000_000n - 10_000n - 2n * 50_000n);
  });

  it("stream the agent's answer as server-sent events", async () => {
    const { jar } = await withCredit();
    const res = await call(POST, {
      method: "POST",
      path: "/api/v1/gateway",
      json: { messages: [{ role: "user", content: "Hi?" }] },
      headers: { accept: "text/event-stream" },
      jar,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const text = await res.text();
    expect(text).toContain("data: [DONE]");
    expect(provider.requests.at(-1)?.body).toMatchObject({ stream: true });
  });
});
