/**
 * The AI plugins' default upstream end to end: the gateway → the REAL backend's `POST /api/ai/gateway`
 * (internal key) → a loopback OpenAI-compatible provider; JSON and a stream, paid by card credit.
 */
import { startFakeAiProvider } from "@svc/common/testing";
import { cardCredits } from "@svc/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import { POST } from "@/app/api/v1/gateway/route";
import { startTestBackend } from "../runtime/testing/backend";
import { call, signedInUser, useWebTestContext, webContext } from "../testing";
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
