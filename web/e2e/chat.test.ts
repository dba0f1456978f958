/**
 * The Chat page in real Chromium against the built web and the REAL backend with its job worker: a message
 * goes through `POST /api/gateway/chat`, the worker asks the agent (the fake agent runtime, asking its
 * provider as OpenClaw does), the runtime asks the backend's AI proxy (`/api/ai/chat/completions`) with its
 * gateway token, which asks a loopback OpenAI-compatible provider; the reply appears on screen. Without an AI provider the job fails at once and the page says why; a full workload is a 429 shown
 * with its retry time.
 */
import { randomBytes } from "node:crypto";
import type { ServerResponse } from "node:http";
import {
  answerAgentIdentity,
  type FakeAgentRuntime,
  type FakeUpstream,
  sendJson,
  startFakeAgentRuntime,
  startFakeAiProvider,
  startFakeUpstream,
} from "@svc/common/testing";
import { platformJobs } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { seedAgent } from "./testing/agents";
import { E2E_DATA_ENCRYPTION_KEY, useDashboardStack } from "./testing/dashboard";
import { startPlatformBackend } from "./testing/platform-backend";

const provider = await startFakeAiProvider();
provider.setResponder((_body, { lastUserText }) => ({ content: `The agent heard: ${lastUserText}` }));
const backend = await startPlatformBackend({
  AI_PROVIDER_URL: provider.url,
  AI_PROVIDER_KEY: provider.apiKey,
});
// A second backend of the same platform without an AI provider: the agents that ask it get no answer.
const unconfigured = await startPlatformBackend({}, { worker: false });
const runtimes: FakeAgentRuntime[] = [];

// An agent that holds every chat until the test lets it answer (its job stays running meanwhile).
const held: ServerResponse[] = [];
/** The wrapper slowAgent stands in for (its password set by the test that seeds the agent). */
const slowWrapper = { adminPassword: "" };
const slowAgent: FakeUpstream = await startFakeUpstream((req, res) => {
  if (slowWrapper.adminPassword && answerAgentIdentity(req, res, slowWrapper.adminPassword)) return;
  if (req.url === "/v1/chat/completions") {
    held.push(res);
    return;
  }
  sendJson(res, 404, {});
});

const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: {
    BACKEND_URL: backend.url,
    DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY,
    CHAT_WORKLOAD_SLOTS: "1",
  },
});
afterAll(async () => {
  for (const res of held) res.destroy();
  await slowAgent.close();
  await Promise.all(runtimes.map((r) => r.close()));
  await backend.close();
  await unconfigured.close();
  await provider.close();
});

/** A signed-in user whose agent's runtime asks `backendUrl`'s AI proxy the way OpenClaw does. */
async function userWithAgentBehind(backendUrl: string, viewport?: { width: number; height: number }) {
  const signedIn = await stack.signIn({ viewport });
  const token = randomBytes(32).toString("hex");
  const runtime = await startFakeAgentRuntime({
    token,
    provider: { baseUrl: `${backendUrl}/api/ai`, model: "openai/gpt-4o-mini" },
  });
  runtimes.push(runtime);
  const agent = await seedAgent(signedIn.user.id, { url: runtime.url, token, fake: runtime });
  return { ...signedIn, agent };
}

async function send(page: import("playwright-core").Page, message: string) {
  await page.getByLabel("Message", { exact: true }).fill(message);
  await page.getByRole("button", { name: "Send" }).click();
}

describe("Chat page", () => {
  it("a message appears at once, then the agent's reply from the AI provider; it stays in the history", async () => {
    const { page, context, user } = await userWithAgentBehind(backend.url);
    await page.goto("/dashboard/chat");
    await expect.poll(() => page.getByText("No messages yet").isVisible(), { timeout: 15_000 }).toBe(true);
    await expectAccessible(page);

    await send(page, "What is two plus two?");
    const turn = page.getByTestId("chat-turn").last();
    // The message is on screen before any answer.
    expect(await turn.getByTestId("chat-message").textContent()).toBe("What is two plus two?");
    await expect
      .poll(() => turn.getByTestId("chat-reply").textContent(), { timeout: 30_000 })
      .toBe("The agent heard: What is two plus two?");
    expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("");
    const [job] = await webContext().db.select().from(platformJobs).where(eq(platformJobs.userId, user.id));
    expect(job).toMatchObject({ status: "completed", attempts: 1, jobType: "gateway_chat_completion" });
    expect(provider.requests.at(-1)?.body?.messages).toEqual(
      expect.arrayContaining([{ role: "user", content: [{ type: "text", text: "What is two plus two?" }] }]),
    );

    // Earlier chats are listed from the user's jobs after a reload.
    await page.reload();
    await expect
      .poll(() => page.getByTestId("chat-reply").last().textContent(), { timeout: 15_000 })
      .toBe("The agent heard: What is two plus two?");
    expect(await page.getByTestId("chat-message").last().textContent()).toBe("What is two plus two?");
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("no AI provider configured: the job fails at once and the page says what to set", async () => {
    const { page, context, user } = await userWithAgentBehind(unconfigured.url);
    await page.goto("/dashboard/chat");
    await expect.poll(() => page.getByText("No messages yet").isVisible(), { timeout: 15_000 }).toBe(true);
    await send(page, "hello?");
    await expect
      .poll(() => page.getByTestId("chat-error").last().textContent(), { timeout: 30_000 })
      .toContain("no AI provider is configured: set AI_PROVIDER_URL and AI_PROVIDER_KEY");
    expect(await page.getByTestId("chat-error").last().textContent()).toContain("Failed after 1 attempt");
    const [job] = await webContext().db.select().from(platformJobs).where(eq(platformJobs.userId, user.id));
    expect(job).toMatchObject({ status: "failed", attempts: 1, maxAttempts: 3 });
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("shows a running job's status, and a 429 with its retry time while the workload is full", async () => {
    const { page, context, user } = await stack.signIn();
    await seedAgent(user.id, { url: slowAgent.url, fake: slowWrapper });
    await page.goto("/dashboard/chat");
    await expect.poll(() => page.getByText("No messages yet").isVisible(), { timeout: 15_000 }).toBe(true);
    await send(page, "take your time");
    await expect
      .poll(() => page.getByTestId("chat-status").last().textContent(), { timeout: 30_000 })
      .toContain("Running (attempt 1 of 3)");

    // One slot (CHAT_WORKLOAD_SLOTS=1) is taken by the running job: the next message is refused with 429.
    await send(page, "and another thing");
    await expect
      .poll(() => page.getByTestId("chat-error").last().textContent(), { timeout: 15_000 })
      .toMatch(/too many chat messages in progress; try again shortly \(try again in 5 s\)/);
    expect(await page.getByTestId("chat-retry-at").last().textContent()).toMatch(
      /^You can send again at .+\.$/,
    );
    // The refused text is back in the box, to send again.
    expect(await page.getByLabel("Message", { exact: true }).inputValue()).toBe("and another thing");
    await expectAccessible(page);

    // The agent answers at last: the running job completes on screen.
    await expect.poll(() => held.length).toBeGreaterThan(0);
    const res = held.shift() as ServerResponse;
    sendJson(res, 200, { model: "slow", choices: [{ message: { role: "assistant", content: "finally" } }] });
    await expect
      .poll(() => page.getByTestId("chat-reply").last().textContent(), { timeout: 30_000 })
      .toBe("finally");
    await context.close();
  }, 120_000);
});
