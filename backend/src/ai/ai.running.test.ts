/**
 * `POST /api/ai/chat` through the running backend (a real client, `fetch`): a request that names no `model`
 * gets AI_DEFAULT_MODEL, which every plan may use (issue 25 item 5).
 */
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import { useRunningServers } from "@svc/common/testing/running-servers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createUser, headersFor } from "../testing";

const DEFAULT_MODEL = "acme/default-model";

let fake: FakeAiProvider;
/** The backend's variables; the provider's address is known once it listens (this hook runs first). */
const backendEnv: Record<string, string> = {
  AI_DEFAULT_MODEL: DEFAULT_MODEL,
  AI_PROVIDER_TIMEOUT_MS: "5000",
};
beforeAll(async () => {
  fake = await startFakeAiProvider({ apiKey: "provider-key-contract" });
  Object.assign(backendEnv, { AI_PROVIDER_URL: fake.url, AI_PROVIDER_KEY: fake.apiKey });
});
const servers = useRunningServers({ backend: backendEnv });
afterAll(() => fake.close());

/** A signed-in user of the web as the backend sees one: internal key, signed user context, plan. */
async function webUserHeaders(): Promise<Record<string, string>> {
  const user = await createUser({
    name: "subscriber",
    plan: "solo",
    emailVerifiedAt: new Date("2026-01-01T00:00:00Z"),
  });
  return { ...headersFor(user), "content-type": "application/json", "x-user-plan": "solo" };
}

const messages = [{ role: "user", content: "Hi?" }];

async function chat(headers: Record<string, string>, body: unknown) {
  const res = await fetch(`${servers.backend.url}/api/ai/chat`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe("POST /api/ai/chat without a model", () => {
  it("asks the provider for AI_DEFAULT_MODEL and answers its completion", async () => {
    fake.setReply("Hello.");
    const before = fake.requests.length;
    const { status, body } = await chat(await webUserHeaders(), { messages, temperature: 0.1 });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      object: "chat.completion",
      model: DEFAULT_MODEL,
      choices: [{ index: 0, message: { role: "assistant", content: "Hello." }, finish_reason: "stop" }],
    });
    expect(fake.requests.slice(before).map((r) => r.body)).toEqual([
      { model: DEFAULT_MODEL, messages, temperature: 0.1 },
    ]);
  });

  it("a model named is the one asked for; an empty or non-string model is still a 400", async () => {
    const headers = await webUserHeaders();
    const before = fake.requests.length;
    expect((await chat(headers, { model: DEFAULT_MODEL, messages })).status).toBe(200);
    expect(await chat(headers, { model: "", messages })).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "model: must not be empty" },
    });
    expect(await chat(headers, { model: 7, messages })).toEqual({
      status: 400,
      body: { error: "invalid_request", message: "model: must be a string" },
    });
    expect(fake.requests.slice(before).map((r) => r.body?.model)).toEqual([DEFAULT_MODEL]);
  });
});
