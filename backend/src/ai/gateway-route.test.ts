import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import request from "supertest";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { headersFor, testApp } from "../testing";
import { PLATFORM_DEFAULT_MODEL } from "./budget";

let fake: FakeAiProvider;
beforeAll(async () => {
  fake = await startFakeAiProvider({ apiKey: "provider-key-xyz" });
});
afterAll(() => fake.close());

function app(env: Record<string, string> = {}) {
  return testApp({
    env: {
      AI_PROVIDER_URL: fake.url,
      AI_PROVIDER_KEY: fake.apiKey,
      AI_DEFAULT_MODEL: "openai/gpt-4o-mini",
      ...env,
    },
  });
}

describe("POST /api/ai/gateway (the v1 gateway's AI plugins)", () => {
  it("forwards a completion with the default model and the provider's key; answers the provider's JSON", async () => {
    const res = await request(app())
      .post("/api/ai/gateway")
      .set(headersFor("internal"))
      .send({ messages: [{ role: "user", content: "Hi?" }], temperature: 0 });
    expect(res.status).toBe(200);
    expect(res.body.choices[0].message.content).toBe("Hello from the fake provider.");
    const sent = fake.requests.at(-1);
    expect(sent?.body).toMatchObject({ model: "openai/gpt-4o-mini", temperature: 0 });
    expect(sent?.headers.authorization).toBe("Bearer provider-key-xyz");
  });

  it("the platform's default model is AI_DEFAULT_MODEL as set when the call is made (agents keep it across a change)", async () => {
    for (const model of ["openai/gpt-4o-mini", "acme/newer-model"]) {
      const res = await request(app({ AI_DEFAULT_MODEL: model }))
        .post("/api/ai/gateway")
        .set(headersFor("internal"))
        .send({ model: PLATFORM_DEFAULT_MODEL, messages: [{ role: "user", content: "Hi?" }] });
      expect(res.status).toBe(200);
      expect(fake.requests.at(-1)?.body).toMatchObject({ model });
    }
  });

  it("streams server-sent events with stream: true", async () => {
    const res = await request(app())
      .post("/api/ai/gateway")
      .set(headersFor("internal"))
      .send({ messages: [{ role: "user", content: "Hi?" }], stream: true });
    expect(res.status).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^text\/event-stream/);
    expect(res.text).toContain("data: [DONE]");
  });

  it("401 without the internal key, 403 with another, 400 without messages, 403 for a model not allowed", async () => {
    const body = { messages: [{ role: "user", content: "Hi?" }] };
    expect((await request(app()).post("/api/ai/gateway").send(body)).status).toBe(401);
    const wrong = await request(app()).post("/api/ai/gateway").set("authorization", "Bearer nope").send(body);
    expect(wrong.status).toBe(403);
    const missing = await request(app()).post("/api/ai/gateway").set(headersFor("internal")).send({});
    expect(missing.status).toBe(400);
    const model = await request(app())
      .post("/api/ai/gateway")
      .set(headersFor("internal"))
      .send({ ...body, model: "anthropic/claude-opus" });
    expect(model.status).toBe(403);
  });
});
