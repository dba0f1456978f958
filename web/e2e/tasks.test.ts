/**
 * The Scheduled tasks page in real headless Chromium against the built web app and the real backend:
 * create a task (the schedule's next run shown as it is typed, then in the list), filter by agent, disable,
 * delete after a confirmation; a failing task's state, last run and error in words with its raw answer behind
 * a toggle, its actions inside the card at both widths (issue 26 item 5); accessible at desktop and 360 px.
 */
import { nextCronRun } from "@svc/common/cron";
import { agents, scheduledTasks } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { formatDate } from "../components/ui/format-date";
import { webContext } from "../lib/infra/testing";
import { DESKTOP_WIDTH, expectAccessible, NARROW_WIDTH } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

// Tasks can be created only where an AI provider is set (the page says so otherwise); none is called here.
const stack = useDashboardStack({
  backendEnv: { AI_PROVIDER_KEY: "e2e-provider-key", AI_PROVIDER_URL: "http://127.0.0.1:9/v1" },
});

async function rowsOf(userId: string) {
  return webContext().db.select().from(scheduledTasks).where(eq(scheduledTasks.userId, userId));
}

describe("Scheduled tasks page", () => {
  it("creates a task and shows its next run, filters by agent, disables and deletes it", async () => {
    const { user, page, context } = await stack.signIn();
    await webContext()
      .db.insert(agents)
      .values([
        { id: `agt_e2e_main_${user.id}`, userId: user.id, name: "Main agent" },
        { id: `agt_e2e_other_${user.id}`, userId: user.id, name: "Other agent" },
      ]);
    try {
      await page.goto("/dashboard/tasks");
      await expect
        .poll(() => page.getByText("No scheduled tasks").isVisible(), { timeout: 20_000 })
        .toBe(true);
      expect(await page.getByRole("link", { name: "Scheduled tasks" }).count()).toBeGreaterThan(0);

      const form = page.getByRole("form", { name: "Create a scheduled task" });
      await form.getByLabel("Name").fill("Morning digest");
      await form.getByLabel("Agent").selectOption({ label: "Main agent" });
      const schedule = form.getByLabel("Schedule (cron, UTC)");
      await schedule.fill("* * *");
      await expect
        .poll(() => page.locator("#cronSchedule-hint").textContent())
        .toMatch(/must have 5 or 6 fields/);
      const before = new Date();
      await schedule.fill("0 9 * * *");
      const hint = page.locator("#cronSchedule-hint");
      await expect.poll(() => hint.textContent()).toMatch(/^Runs every day at 09:00 UTC\. Next: /);
      // The page reckons the next run when it renders, between `before` and now: should 09:00 UTC fall in
      // between, its answer is the next day's run. Either is right; nothing else is.
      const shown = (await hint.textContent()) ?? "";
      const nextOf = (at: Date) =>
        `Runs every day at 09:00 UTC. Next: ${formatDate(nextCronRun("0 9 * * *", at), { zone: true })}`;
      expect(shown.slice(0, nextOf(before).length)).toBeOneOf([nextOf(before), nextOf(new Date())]);
      await form.getByLabel("Prompt").fill("Summarize what happened overnight.");
      await expectAccessible(page);
      await form.getByRole("button", { name: "Create task" }).click();

      const table = page.getByTestId("tasks");
      await expect.poll(() => table.getByText("Morning digest").isVisible(), { timeout: 15_000 }).toBe(true);
      const [row] = await rowsOf(user.id);
      expect(row).toMatchObject({
        name: "Morning digest",
        cronSchedule: "0 9 * * *",
        prompt: "Summarize what happened overnight.",
        agentId: `agt_e2e_main_${user.id}`,
        enabled: true,
        status: "pending",
      });
      expect(await table.getByTestId("task-next-run").textContent()).toBe(
        formatDate(row.nextRun, { zone: true }),
      );
      // One badge: a task waiting for its next run is "scheduled", never "pending".
      expect(await table.getByTestId("task-state").textContent()).toBe("scheduled");
      expect(await table.getByTestId("task-outcome").textContent()).toBe("Not run yet.");
      await expectAccessible(page);

      // The filter: the other agent has no tasks; all agents shows it again.
      await page.getByLabel("Show tasks of").selectOption({ label: "Other agent" });
      await expect.poll(() => page.getByText("No scheduled tasks").isVisible()).toBe(true);
      await page.getByLabel("Show tasks of").selectOption({ label: "All agents" });
      await expect.poll(() => table.getByText("Morning digest").isVisible()).toBe(true);

      await page.getByRole("button", { name: "Disable task Morning digest" }).click();
      await expect.poll(() => table.getByTestId("task-state").textContent()).toBe("disabled");
      expect(await table.getByTestId("task-next-run").textContent()).toBe("—");
      expect((await rowsOf(user.id))[0].enabled).toBe(false);

      await page.getByRole("button", { name: "Delete task Morning digest" }).click();
      await page.getByRole("button", { name: "Delete task", exact: true }).click();
      await expect.poll(() => page.getByText("No scheduled tasks").isVisible()).toBe(true);
      expect(await rowsOf(user.id)).toEqual([]);
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 120_000);
});

/** Whether every action button of every task lies inside the tasks card (not pushed past its edge). */
async function actionsInsideCard(page: Page): Promise<boolean> {
  return page.getByTestId("tasks-card").evaluate((card) => {
    const edge = card.getBoundingClientRect();
    return [...card.querySelectorAll('[data-testid="task"] button')].every((button) => {
      const box = button.getBoundingClientRect();
      return box.left >= edge.left && box.right <= edge.right && box.width > 0;
    });
  });
}

describe("A failing scheduled task", () => {
  it("reads retrying, then failed: the last run's outcome, the error in words, the raw JSON behind a toggle", async () => {
    const { user, page, context } = await stack.signIn();
    const agentId = `agt_e2e_fail_${user.id}`;
    await webContext().db.insert(agents).values({ id: agentId, userId: user.id, name: "Night owl" });
    const body = JSON.stringify({
      error: { message: "Invalid gateway token", type: "unauthorized", code: "invalid_token" },
    });
    const nextRun = new Date("2030-01-01T00:01:30.000Z");
    // What the scheduler writes after a second failed dispatch (backend/src/scheduled-tasks/sql/failTask.ts).
    await webContext()
      .db.insert(scheduledTasks)
      .values({
        id: `tsk_e2e_fail_${user.id}`,
        userId: user.id,
        agentId,
        name: "Minutely check with a rather long name that wraps",
        cronSchedule: "*/1 * * * *",
        prompt: "Check the inbox.",
        status: "pending",
        attempts: 2,
        lastError: `the agent gateway answered HTTP 401: ${body}`,
        nextRun,
      });
    try {
      await page.goto("/dashboard/tasks");
      const task = page.getByTestId("task");
      await expect.poll(() => task.count(), { timeout: 20_000 }).toBe(1);
      expect(await task.getByTestId("task-state").textContent()).toBe("retrying");
      expect(await task.textContent()).not.toContain("pending");
      expect(await task.textContent()).toContain("every minute");
      expect(await task.textContent()).not.toContain("every 1 minutes");
      expect(await task.textContent()).toContain("Night owl");
      expect(await task.getByTestId("task-outcome").textContent()).toBe(
        `Last run failed (attempt 2 of 5); next attempt at ${formatDate(nextRun, { zone: true })}.`,
      );
      expect(await task.getByTestId("task-error").textContent()).toBe(
        "The agent refused the platform's credentials (HTTP 401): Invalid gateway token.",
      );
      // The JSON stays behind the toggle until asked for.
      const raw = task.locator("details pre");
      expect(await raw.isVisible()).toBe(false);
      await task.getByText("Details of the error").click();
      await expect.poll(() => raw.isVisible()).toBe(true);
      expect(JSON.parse((await raw.textContent()) ?? "")).toEqual(JSON.parse(body));
      for (const width of [DESKTOP_WIDTH, NARROW_WIDTH]) {
        await page.setViewportSize({ width, height: 800 });
        await expect.poll(() => actionsInsideCard(page)).toBe(true);
      }
      await page.setViewportSize({ width: DESKTOP_WIDTH, height: 800 });
      await expectAccessible(page);

      // Out of attempts: failed, no next run, and enabling it again is what runs it.
      await webContext()
        .db.update(scheduledTasks)
        .set({ status: "failed", attempts: 5, nextRun: null })
        .where(eq(scheduledTasks.agentId, agentId));
      await page.reload();
      await expect
        .poll(() => task.getByTestId("task-state").textContent(), { timeout: 20_000 })
        .toBe("failed");
      expect(await task.getByTestId("task-next-run").textContent()).toBe("—");
      expect(await task.getByTestId("task-outcome").textContent()).toBe(
        "Last run failed after 5 attempts; it does not run again until you enable it.",
      );
      await expectAccessible(page);
    } finally {
      await context.close();
    }
  }, 120_000);
});
