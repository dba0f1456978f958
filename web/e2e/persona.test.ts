/**
 * The Persona page in real Chromium: the built web app asks the user's agent, here the fake agent runtime
 * answering the wrapper's persona routes in the wrapper's shapes (wrapper/src/persona/routes.test.ts holds
 * the two to the same answers), its judge's scores scripted per run. The agent's own behaviour under
 * evaluation is the real runtime's test (backend/src/runtime/openclaw-e2e.test.ts).
 */
import { startFakeAgentRuntime } from "@svc/common/testing";
import { afterAll, describe, expect, it } from "vitest";
import { deployTestAgent, TEST_DATA_ENCRYPTION_KEY } from "../lib/health/testing/agents";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const TOKEN = "c".repeat(64);
let judgeScore = 0.9;
const runtime = await startFakeAgentRuntime({
  token: TOKEN,
  wrapper: true,
  reply: "Aye, a fine question.",
  judge: () => judgeScore,
});
const runtimeUrl = runtime.url;

const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { DATA_ENCRYPTION_KEY: TEST_DATA_ENCRYPTION_KEY },
});
afterAll(async () => {
  await runtime.close();
});

describe("Persona page", () => {
  it("runs evaluations: scores as bars, the overall score over time, drift marked after a drop", async () => {
    const { page, context, user } = await stack.signIn();
    await deployTestAgent(user.id, { url: runtimeUrl, token: TOKEN, fake: runtime });
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
      // What the page asked the agent to run: the quick set, then the same without Emotion.
      expect(runtime.evaluations.map((r) => [r.probeSet, r.dimensions])).toEqual([
        ["quick", ["voice", "emotion", "knowledge", "refusal"]],
        ["quick", ["voice", "knowledge", "refusal"]],
      ]);
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
