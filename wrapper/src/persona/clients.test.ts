/** The runtime client's limits, against a fake OpenAI provider standing in for OpenClaw's endpoint. */
import { isHttpError } from "@svc/common";
import { type FakeAiProvider, startFakeAiProvider } from "@svc/common/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createRuntimeChatClient, MAX_ANSWER_CHARS, MAX_COMPLETION_BYTES } from "./clients";

const TOKEN = "persona-clients-token-0123456789abcdef";
let runtime: FakeAiProvider;

beforeAll(async () => {
  runtime = await startFakeAiProvider({ apiKey: TOKEN });
});
afterEach(() => runtime.reset());
afterAll(async () => {
  await runtime.close();
});

async function failure(promise: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await promise;
  } catch (err) {
    if (isHttpError(err)) return { status: err.status, message: err.message };
    throw err;
  }
  throw new Error("the call succeeded");
}

describe("the runtime client", () => {
  it("cuts a long answer to MAX_ANSWER_CHARS", async () => {
    runtime.setReply("a".repeat(MAX_ANSWER_CHARS + 500));
    const answer = await createRuntimeChatClient({ baseUrl: runtime.url, token: TOKEN }).answer("Hi", "k:1");
    expect(answer).toBe(`${"a".repeat(MAX_ANSWER_CHARS)}…`);
  });

  it("an answer larger than MAX_COMPLETION_BYTES, a missed deadline or a wrong token is a 502 naming it", async () => {
    const client = createRuntimeChatClient({ baseUrl: runtime.url, token: TOKEN, timeoutMs: 300 });
    runtime.setReply("b".repeat(MAX_COMPLETION_BYTES));
    expect(await failure(client.answer("Hi", "k:2"))).toEqual({
      status: 502,
      message: `the agent could not answer "Hi": the agent runtime's answer is larger than the ${MAX_COMPLETION_BYTES}-byte limit`,
    });
    runtime.reset();
    runtime.setDelay(5_000);
    expect(await failure(client.answer("Hi", "k:3"))).toEqual({
      status: 502,
      message: 'the agent could not answer "Hi": the agent runtime timed out after 300 ms',
    });
    runtime.reset();
    const wrongToken = createRuntimeChatClient({ baseUrl: runtime.url, token: "not-the-token" });
    expect(await failure(wrongToken.answer("Hi", "k:4"))).toEqual({
      status: 502,
      message: 'the agent could not answer "Hi": the agent runtime answered 401: Incorrect API key provided',
    });
  });

  it("a runtime that is not there is a 502 saying it could not be reached", async () => {
    const gone = await startFakeAiProvider({ apiKey: TOKEN });
    await gone.close();
    const { status, message } = await failure(
      createRuntimeChatClient({ baseUrl: gone.url, token: TOKEN }).answer("Hi", "k:5"),
    );
    expect(status).toBe(502);
    expect(message).toMatch(/^the agent could not answer "Hi": the agent runtime could not be reached: /);
  });
});
