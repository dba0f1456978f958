/**
 * The Overview in real Chromium against the built web and the real backend: without an agent it points to
 * the deploy; with one it shows the agent's health, the trial, the recent jobs and the pending approvals
 * count, which follows the permission WebSocket live.
 */
import { sendJson, startFakeUpstream } from "@svc/common/testing";
import { connectDatabase } from "@svc/db";
import { afterAll, describe, expect, it } from "vitest";
import { enqueueJob } from "../../backend/src/platform-jobs/sql";
import { expectAccessible } from "./testing/a11y";
import { classify, seedAgent } from "./testing/agents";
import { E2E_DATA_ENCRYPTION_KEY, useDashboardStack } from "./testing/dashboard";
import { startPlatformBackend } from "./testing/platform-backend";

const backend = await startPlatformBackend({}, { worker: false });
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { BACKEND_URL: backend.url, DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY },
});
const db = connectDatabase(process.env.DATABASE_URL as string, { max: 2 });
// The agent's wrapper: the probe's three endpoints, healthy.
const wrapper = await startFakeUpstream((req, res) => {
  const path = (req.url ?? "/").split("?")[0];
  if (path === "/healthz") return sendJson(res, 200, { ok: true });
  if (path === "/readyz") return sendJson(res, 200, { ready: true });
  if (path === "/api/status")
    return sendJson(res, 200, { state: "running", running: true, configured: true });
  sendJson(res, 404, { ok: false });
});
afterAll(async () => {
  await wrapper.close();
  await backend.close();
  await db.close();
});

describe("Overview", () => {
  it("without an agent: the next step is to deploy one", async () => {
    const { page, context } = await stack.signIn();
    await page.goto("/dashboard");
    const agent = page.getByTestId("overview-agent");
    await expect
      .poll(() => agent.getByText("You have no agent yet").isVisible(), { timeout: 15_000 })
      .toBe(true);
    expect(await page.getByTestId("overview-deploy").getAttribute("href")).toBe("/dashboard/agent");
    await expect
      .poll(() => page.getByTestId("trial").textContent())
      .toMatch(/^active \d+ days? left \(ends .+\)$/);
    await expect.poll(() => page.getByTestId("overview-approvals-count").textContent()).toMatch(/^0/);
    await expect
      .poll(() => page.getByTestId("overview-jobs").getByText("No jobs yet").isVisible())
      .toBe(true);
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("with an agent: its health, recent jobs, and the pending approvals count live", async () => {
    const { page, context, user } = await stack.signIn();
    const agent = await seedAgent(user.id, { url: wrapper.url });
    const queued = await enqueueJob(
      db.pool,
      { now: () => null },
      { jobType: "gateway_chat_completion", userId: user.id, agentId: agent.id, payload: { message: "hi" } },
    );
    await page.goto("/dashboard");
    await expect
      .poll(() => page.getByTestId("overview-agent-status").textContent(), { timeout: 20_000 })
      .toMatch(/running/i);
    // The agent by the name its user gave it, not its id (issue 26 item 6).
    expect(await page.getByTestId("overview-agent-name").textContent()).toBe("Scout");
    expect(await page.getByTestId("overview-agent").textContent()).not.toContain(agent.id);
    const jobs = page.getByTestId("overview-jobs");
    await expect.poll(() => jobs.locator("tbody tr").count(), { timeout: 15_000 }).toBe(1);
    expect(await jobs.locator("tbody tr").first().getByRole("link").getAttribute("href")).toBe(
      `/dashboard/jobs/${queued.id}`,
    );
    const count = page.getByTestId("overview-approvals-count");
    await expect.poll(() => count.textContent(), { timeout: 15_000 }).toMatch(/^0/);
    await expect
      .poll(() => page.getByTestId("overview-approvals").textContent(), { timeout: 15_000 })
      .toContain("Live");

    await classify(backend.url, agent.token, "npm install x");
    await expect.poll(() => count.textContent()).toMatch(/^1 request waits for you/);
    await expectAccessible(page);
    await context.close();
  }, 120_000);
});
