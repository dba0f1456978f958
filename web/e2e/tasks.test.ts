/**
 * The Scheduled tasks page in real headless Chromium against the built web app and the real backend:
 * create a task (the schedule's next run shown as it is typed, then in the list), filter by agent, disable,
 * delete after a confirmation; accessible at desktop and 360 px.
 */
import { nextCronRun } from "@svc/common/cron";
import { agents, scheduledTasks } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { formatDate } from "../components/ui/format-date";
import { webContext } from "../lib/testing";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const stack = useDashboardStack();

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
      expect(await table.getByTestId("task-state").textContent()).toContain("pending");
      await expectAccessible(page);

      // The filter: the other agent has no tasks; all agents shows it again.
      await page.getByLabel("Show tasks of").selectOption({ label: "Other agent" });
      await expect.poll(() => page.getByText("No scheduled tasks").isVisible()).toBe(true);
      await page.getByLabel("Show tasks of").selectOption({ label: "All agents" });
      await expect.poll(() => table.getByText("Morning digest").isVisible()).toBe(true);

      await page.getByRole("button", { name: "Disable task Morning digest" }).click();
      await expect.poll(() => table.getByTestId("task-state").textContent()).toContain("disabled");
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
