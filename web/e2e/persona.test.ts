/**
 * The Persona page in real Chromium: the built web app asks the user's agent, here the REAL development
 * runtime, whose model is a scripted loopback AI provider (probes answered, judgements scripted per run).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "@svc/common";
import { startFakeAiProvider } from "@svc/common/testing";
import { afterAll, describe, expect, it } from "vitest";
import { deployTestAgent, TEST_DATA_ENCRYPTION_KEY } from "../lib/health/testing/agents";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const TOKEN = "c".repeat(64);
let judgeScore = 0.9;
const provider = await startFakeAiProvider({ apiKey: TOKEN });
provider.setResponder((body) => {
  const messages = body.messages as Array<{ content: string }>;
  if (String(messages[0]?.content).startsWith("You evaluate"))
    return { content: JSON.stringify({ score: judgeScore }) };
  return { content: "Aye, a fine question." };
});

const stateDir = await mkdtemp(join(tmpdir(), "svc-persona-e2e-"));
const port = await freePort();
const runtimeUrl = `http://127.0.0.1:${port}`;
const { PLATFORM_BACKEND_URL: _a, PLATFORM_AI_CHAT_URL: _b, ...inherited } = process.env;
const runtime: ChildProcess = spawn(
  process.execPath,
  [join(import.meta.dirname, "../../wrapper/dev-runtime/server.mjs"), "--port", String(port)],
  {
    env: {
      ...inherited,
      OPENCLAW_GATEWAY_TOKEN: TOKEN,
      OPENCLAW_STATE_DIR: stateDir,
      PLATFORM_AI_CHAT_URL: `${provider.url}/chat/completions`,
    },
    stdio: "ignore",
  },
);
for (;;) {
  const ready = await fetch(`${runtimeUrl}/readyz`).catch(() => null);
  if (ready?.status === 200) break;
  if (runtime.exitCode !== null) throw new Error(`the development runtime exited ${runtime.exitCode}`);
  await new Promise((r) => setTimeout(r, 50));
}

const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY },
});
afterAll(async () => {
  const exited = new Promise((resolve) => runtime.once("exit", resolve));
  runtime.kill("SIGTERM");
  await exited;
  await provider.close();
  await rm(stateDir, { recursive: true, force: true });
});

describe("Persona page", () => {
  it("runs evaluations: scores as bars, the overall score over time, drift marked after a drop", async () => {
    const { page, context, user } = await stack.signIn();
    await deployTestAgent(user.id, { url: runtimeUrl, token: TOKEN });
    try {
      await page.goto("/dashboard/persona");
      await expect
        .poll(() => page.getByText("No evaluations yet").isVisible(), { timeout: 15_000 })
        .toBe(true);
      expect(await page.getByTestId("score-voice").textContent()).toBe("Voicenot evaluated");
      await expectAccessible(page);

      await page.getByLabel("Probe set").selectOption("quick");
      await page.getByRole("button", { name: "Run evaluation" }).click();
      await expect
        .poll(() => page.getByRole("status").filter({ hasText: "Evaluation finished" }).textContent(), {
          timeout: 15_000,
        })
        .toBe("Evaluation finished: overall 90%.");
      await expect.poll(() => page.getByTestId("score-refusal").textContent()).toBe("Refusal90%");
      expect(await page.getByTestId("persona-drift").textContent()).toContain("no drift");

      judgeScore = 0.5;
      await page.getByLabel("Emotion").uncheck();
      await page.getByRole("button", { name: "Run evaluation" }).click();
      await expect
        .poll(() => page.getByRole("status").filter({ hasText: "Evaluation finished" }).textContent(), {
          timeout: 15_000,
        })
        .toBe("Evaluation finished: overall 50%, drift detected.");
      await expect.poll(() => page.getByTestId("persona-drift").textContent()).toContain("drift detected");
      // Emotion was not run again: it keeps its 90%.
      expect(await page.getByTestId("score-emotion").textContent()).toBe("Emotion90%");
      expect(await page.getByTestId("score-voice").textContent()).toBe("Voice50%");
      const chart = page.getByTestId("persona-chart");
      expect(await chart.locator("circle").count()).toBe(2);
      expect(await chart.locator("circle[data-drift]").count()).toBe(1);
      expect(await chart.locator("svg").getAttribute("aria-label")).toMatch(/2 runs\..*90%.*50% \(drift\)/);
      expect(await page.getByTestId("persona-drift-notice").isVisible()).toBe(true);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("without an agent it says so", async () => {
    const { page, context } = await stack.signIn();
    try {
      await page.goto("/dashboard/persona");
      await expect
        .poll(() => page.getByText("No agent deployed").isVisible(), { timeout: 15_000 })
        .toBe(true);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 60_000);
});
