/**
 * The Agent page's deploy in real headless Chromium against the built web app and the REAL backend's routes
 * (no job worker: the deploy job stays where the test puts it, as the worker would write it). Issue 26
 * item 3: an attempt reads "failed" only once it has failed, and Redeploy asks first; item 6: the agent is
 * deployed under the name the user chose (their account's by default) and renamed on the page.
 */
import { sendJson, startFakeUpstream } from "@svc/common/testing";
import { agents, platformJobs } from "@svc/db/schema";
import { and, eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const stack = useDashboardStack();

// The agent's wrapper once it is deployed: the probe's three endpoints, all saying it runs.
const wrapper = await startFakeUpstream((req, res) => {
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/healthz") return sendJson(res, 200, { ok: true });
  if (path === "/readyz") return sendJson(res, 200, { ready: true });
  if (path === "/api/status")
    return sendJson(res, 200, { state: "running", running: true, configured: true });
  sendJson(res, 404, { ok: false });
});
afterAll(() => wrapper.close());

async function deployJobsOf(userId: string) {
  return webContext()
    .db.select()
    .from(platformJobs)
    .where(and(eq(platformJobs.userId, userId), eq(platformJobs.jobType, "provision_managed_runtime")));
}

async function agentOf(userId: string) {
  const [row] = await webContext().db.select().from(agents).where(eq(agents.userId, userId));
  return row;
}

describe("Agent page: deploy", () => {
  it("deploys under the chosen name; a running first attempt is not 'failed'; Redeploy asks first; rename", async () => {
    const { user, page, context } = await stack.signIn({ email: "grace-hopper@example.com" });
    try {
      await page.goto("/dashboard/agent");
      const panel = page.getByTestId("agent-panel");
      const form = panel.getByRole("form", { name: "Deploy your agent" });
      await expect.poll(() => form.isVisible(), { timeout: 20_000 }).toBe(true);
      await hydrated(form);
      // The name defaults to the account's; the user may choose another.
      const name = form.getByLabel("Agent name");
      expect(await name.inputValue()).toBe("grace-hopper's agent");
      await expectAccessible(page);
      await name.fill("Night owl");
      await form.getByRole("button", { name: "Deploy agent" }).click();

      const jobText = () => panel.getByTestId("deploy-job").textContent();
      await expect.poll(jobText).toMatch(/: Queued, waiting for a worker$/);
      const [job] = await deployJobsOf(user.id);
      expect((await agentOf(user.id)).name).toBe("Night owl");

      // The worker has taken it: the first attempt runs, and nothing has failed.
      await webContext()
        .db.update(platformJobs)
        .set({
          status: "running",
          attempts: 1,
          startedAt: new Date(),
          lockedAt: new Date(),
          progress: "installing the agent runtime 2026.4.11…",
        })
        .where(eq(platformJobs.id, job.id));
      await expect
        .poll(jobText, { timeout: 15_000 })
        .toMatch(/: Running \(attempt 1 of 5\): installing the agent runtime 2026\.4\.11…$/);
      expect(await jobText()).not.toContain("failed");
      await expectAccessible(page);

      // The first attempt failed: now it says so, with the error and when the next one runs.
      const retryAt = new Date("2030-01-01T12:00:00.000Z");
      await webContext()
        .db.update(platformJobs)
        .set({ status: "queued", error: "the hosting platform refused the service", runAt: retryAt })
        .where(eq(platformJobs.id, job.id));
      await expect
        .poll(jobText, { timeout: 15_000 })
        .toMatch(/: Attempt 1 of 5 failed \(the hosting platform refused the service\); retry at \S/);

      // Deployed: the page names the agent; a redeploy asks first, and Cancel deploys nothing.
      await webContext()
        .db.update(platformJobs)
        .set({ status: "completed", error: null, completedAt: new Date() })
        .where(eq(platformJobs.id, job.id));
      await webContext()
        .db.update(agents)
        .set({ url: wrapper.url, status: "running" })
        .where(eq(agents.userId, user.id));
      await page.reload();
      await expect
        .poll(() => panel.getByTestId("agent-status").textContent(), { timeout: 20_000 })
        .toBe("Running");
      expect(await panel.getByTestId("agent-name").textContent()).toContain("Night owl");
      const redeploy = panel.getByRole("button", { name: "Redeploy agent" });
      await hydrated(redeploy);
      await redeploy.click();
      const question = panel.getByRole("group");
      expect(await question.textContent()).toContain("Redeploy the agent?");
      await expectAccessible(page);
      await question.getByRole("button", { name: "Cancel" }).click();
      await expect.poll(() => question.count()).toBe(0);
      expect(await deployJobsOf(user.id)).toHaveLength(1);
      await redeploy.click();
      await panel.getByRole("button", { name: "Redeploy now" }).click();
      await expect.poll(jobText).toMatch(/: Queued, waiting for a worker$/);
      expect(await deployJobsOf(user.id)).toHaveLength(2);

      // Rename: the name is the user's to change; the page and the record say the new one.
      await panel.getByRole("button", { name: "Rename your agent" }).click();
      const rename = panel.getByRole("form", { name: "Rename your agent" });
      await rename.getByLabel("New name").fill("Day owl");
      await expectAccessible(page);
      await rename.getByRole("button", { name: "Save name" }).click();
      await expect.poll(() => panel.getByTestId("agent-name").textContent()).toContain("Day owl");
      expect((await agentOf(user.id)).name).toBe("Day owl");
    } finally {
      await context.close();
    }
  }, 180_000);
});
