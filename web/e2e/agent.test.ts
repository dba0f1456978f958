/**
 * The Agent page in real headless Chromium against the built web app and the REAL backend with a job worker
 * and the LOCAL hosting driver: the deploy made in the page provisions a real agent (wrapper + fake
 * runtime), whose status, resources, logs, heartbeat, gateway view, lifecycle and maintenance the page then
 * shows and drives. Also takes the README's screenshot: into docs/dashboard.png with `UPDATE_SCREENSHOTS=1`
 * (commit it), else into the temp directory, so a test run leaves the checkout clean.
 */
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";

const stack = useDashboardStack({ localAgents: true });
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS
  ? fileURLToPath(new URL("../../docs/dashboard.png", import.meta.url))
  : join(tmpdir(), `dashboard-${process.pid}.png`);

const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();

describe("Agent page", () => {
  it("deploys a real agent, shows its status, resources, logs, heartbeat and gateway, and drives its lifecycle", async () => {
    const { page, context } = await stack.signIn({ email: "ada@example.com" });
    await page.goto("/dashboard/agent");
    expect(await page.locator('nav[aria-label="Dashboard"] a[aria-current="page"]').textContent()).toBe(
      "Agent",
    );

    // No agent yet: only the deploy action; none of the agent's cards.
    const deploy = page.getByRole("button", { name: "Deploy agent" });
    await expect.poll(() => deploy.isVisible(), { timeout: 15_000 }).toBe(true);
    expect(await text(page, "agent-none")).toBe("You have no running agent yet.");
    for (const name of ["Start", "Stop", "Restart", "Repair"])
      expect(await page.getByRole("button", { name, exact: true }).count()).toBe(0);
    expect(await page.getByTestId("agent-logs").count()).toBe(0);
    await expectAccessible(page);

    // Deploy: the job is followed until the worker has provisioned the agent; the page then shows it running.
    await deploy.click();
    await expect.poll(() => text(page, "deploy-job")).toMatch(/job_\d+_[0-9a-z]+: (Queued|Running)/);
    await expect.poll(() => text(page, "deploy-job"), { timeout: 60_000 }).toMatch(/: Completed at /);
    await expect.poll(() => text(page, "agent-status"), { timeout: 15_000 }).toBe("Running");
    expect(await text(page, "agent-version")).toBe("2026.4.11");

    // Resources: the local platform's figures (memory of the agent's processes).
    await expect.poll(() => text(page, "agent-memory")).toMatch(/MiB|GiB/);

    // Logs: the agent's own lines; a smaller `lines` asks for fewer.
    await expect
      .poll(async () => (await page.getByTestId("agent-log-lines").locator(".log-line").count()) > 0)
      .toBe(true);
    const logsRequest = page.waitForRequest((r) => r.url().includes("/api/runtime/logs?lines=50"));
    await page.getByLabel("Lines", { exact: true }).selectOption("50");
    await logsRequest;
    await expect
      .poll(async () => (await page.getByTestId("agent-log-lines").locator(".log-line").count()) <= 50)
      .toBe(true);
    const refreshed = page.waitForResponse((r) => r.url().includes("/api/runtime/logs?lines=50") && r.ok());
    await page.getByRole("button", { name: "Refresh logs" }).click();
    await refreshed;

    // Gateway: healthy, no sessions yet.
    await expect.poll(() => text(page, "gateway-health")).toContain("healthy");

    // Heartbeat: read from the gateway, set to every hour (the gateway's cron job appears), then off.
    await expect.poll(() => text(page, "heartbeat-state")).toContain("read from the agent's gateway");
    await page.getByLabel("Frequency", { exact: true }).selectOption("1h");
    await page
      .getByTestId("agent-heartbeat")
      .getByRole("button", { name: /^(Save|Turn on)$/ })
      .click();
    await expect.poll(() => text(page, "heartbeat-state")).toMatch(/^on\s*every 1h/);
    await page.getByRole("button", { name: "Refresh gateway status" }).click();
    await expect.poll(() => text(page, "gateway-cron")).toContain("every hour");
    await page.getByTestId("agent-heartbeat").getByRole("button", { name: "Turn off" }).click();
    await expect.poll(() => text(page, "heartbeat-state")).toMatch(/^off/);
    await page.getByTestId("agent-heartbeat").getByRole("button", { name: "Turn on" }).click();
    await expect.poll(() => text(page, "heartbeat-state")).toMatch(/^on\s*every 1h/);

    // Every card is in place: the README's screenshot, then the accessibility check of the whole page.
    await page.evaluate(() => window.scrollTo(0, 0));
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    await expectAccessible(page);

    // Lifecycle: only what makes sense for the state is enabled (issue 26 item 4). Running: stop or restart.
    const panel = page.getByTestId("agent-panel");
    const control = (name: string) => panel.getByRole("button", { name, exact: true });
    const enabledControls = async () => {
      const names: string[] = [];
      for (const name of ["Start", "Stop", "Restart", "Repair"])
        if (await control(name).isEnabled()) names.push(name);
      return names;
    };
    expect(await enabledControls()).toEqual(["Stop", "Restart"]);
    await control("Stop").click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Stop: done." }).count(), {
        timeout: 30_000,
      })
      .toBe(1);
    // Stopped, as the probe says, not a red "Unreachable"; no CPU or memory figures; only Start.
    await expect.poll(() => text(page, "agent-status"), { timeout: 15_000 }).toBe("Stopped");
    expect(await panel.getByTestId("agent-status").locator(".badge-bad").count()).toBe(0);
    await expect.poll(() => page.getByTestId("agent-stats-stopped").isVisible()).toBe(true);
    expect(await page.getByTestId("agent-memory").count()).toBe(0);
    expect(await page.getByTestId("agent-cpu").count()).toBe(0);
    expect(await enabledControls()).toEqual(["Start"]);
    expect(await text(page, "agent-controls-hint")).toBe("The agent is stopped: start it to run it again.");
    await expectAccessible(page);
    await control("Start").click();
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Start: done." }).count(), {
        timeout: 60_000,
      })
      .toBe(1);
    await expect.poll(() => text(page, "agent-status"), { timeout: 30_000 }).toBe("Running");
    // Running again: its figures are read again.
    await expect.poll(() => text(page, "agent-memory"), { timeout: 15_000 }).toMatch(/MiB|GiB/);
    expect(await page.getByTestId("agent-stats-stopped").count()).toBe(0);

    // Maintenance: a restart asks first; Cancel does nothing, Confirm restarts.
    const maintenance = page.getByTestId("agent-maintenance");
    await maintenance.getByRole("button", { name: "Restart agent" }).click();
    expect(await maintenance.getByRole("group").textContent()).toContain("Restart the agent?");
    await maintenance.getByRole("button", { name: "Cancel" }).click();
    await expect.poll(() => maintenance.getByRole("group").count()).toBe(0);
    await maintenance.getByRole("button", { name: "Restart agent" }).click();
    await maintenance.getByRole("button", { name: "Restart now" }).click();
    await expect
      .poll(() => maintenance.getByRole("status").textContent(), { timeout: 60_000 })
      .toContain("Restarted");
    await maintenance.getByRole("button", { name: "Factory reset…" }).click();
    await maintenance.getByRole("button", { name: "Reset the agent" }).click();
    await expect
      .poll(() => maintenance.getByRole("status").textContent(), { timeout: 60_000 })
      .toContain("Factory reset done");
    await expect.poll(() => text(page, "agent-status"), { timeout: 30_000 }).toBe("Running");
    await context.close();
  }, 240_000);
});
