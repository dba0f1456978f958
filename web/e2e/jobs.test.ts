/**
 * The Jobs pages in real Chromium against the built web and the real backend: the user's platform jobs
 * (only theirs) with type, lane, status, attempts, error and result, filtered, a page at a time, and one
 * job's own page.
 */
import { connectDatabase } from "@svc/db";
import { afterAll, describe, expect, it } from "vitest";
import { enqueueJob } from "../../backend/src/platform-jobs/sql";
import { expectAccessible } from "./testing/a11y";
import { seedAgent } from "./testing/agents";
import { useDashboardStack } from "./testing/dashboard";

const stack = useDashboardStack();
const db = connectDatabase(process.env.DATABASE_URL as string, { max: 2 });
afterAll(() => db.close());

type JobType = "gateway_chat_completion" | "provision_managed_runtime";
async function job(userId: string, jobType: JobType, day: number, message = "hi", agentId = "agt_jobs") {
  const clock = { now: () => new Date(Date.UTC(2026, 5, day, 12)) };
  return enqueueJob(db.pool, clock, { jobType, userId, agentId, payload: { userId, message } });
}
async function finish(
  id: string,
  fields: { status: string; attempts: number; error?: string; result?: object },
) {
  await db.pool.query(
    "update platform_jobs set status = $2, attempts = $3, error = $4, result = $5, completed_at = now() where id = $1",
    [
      id,
      fields.status,
      fields.attempts,
      fields.error ?? null,
      fields.result ? JSON.stringify(fields.result) : null,
    ],
  );
}

describe("Jobs pages", () => {
  it("lists the user's jobs newest first with their outcome; filters; pages; a job's page", async () => {
    const { page, context, user } = await stack.signIn();
    const other = await stack.signIn();
    await job(other.user.id, "gateway_chat_completion", 28, "not yours");
    for (let day = 1; day <= 22; day++) await job(user.id, "gateway_chat_completion", day, `message ${day}`);
    const deploy = await job(user.id, "provision_managed_runtime", 25);
    const failed = await job(user.id, "gateway_chat_completion", 26, "doomed");
    const done = await job(user.id, "gateway_chat_completion", 27, "hello");
    await finish(failed.id, {
      status: "failed",
      attempts: 1,
      error: "no AI provider is configured: set AI_PROVIDER_URL and AI_PROVIDER_KEY",
    });
    await finish(done.id, { status: "completed", attempts: 1, result: { reply: "hi there", model: "m" } });
    await finish(deploy.id, { status: "completed", attempts: 2, result: { agentId: "agt_jobs" } });

    await page.goto("/dashboard/jobs");
    const table = page.getByTestId("jobs-table");
    await expect.poll(() => table.locator("tbody tr").count(), { timeout: 15_000 }).toBe(20);
    const first = table.locator("tbody tr").first();
    const firstText = await first.textContent();
    expect(firstText).toContain("Chat message");
    expect(firstText).toContain("completed");
    expect(firstText).toContain("hi there");
    expect(firstText).toContain("runtime_exec");
    expect(firstText).toContain("1 / 3");
    const second = await table.locator("tbody tr").nth(1).textContent();
    expect(second).toContain("failed");
    expect(second).toContain("no AI provider is configured: set AI_PROVIDER_URL and AI_PROVIDER_KEY");
    expect(await table.locator("tbody tr").nth(2).textContent()).toContain("Deploy agent");
    expect(await table.textContent()).not.toContain("not yours");
    await expectAccessible(page);

    // The older page follows the cursor.
    await page.getByRole("button", { name: "Older jobs" }).click();
    await expect.poll(() => table.locator("tbody tr").count()).toBe(25);
    expect(await page.getByRole("button", { name: "Older jobs" }).count()).toBe(0);
    expect(await table.locator("tbody tr").last().textContent()).toContain("Queued, waiting for a worker");

    // Filters.
    await page.getByLabel("Status").selectOption("failed");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    await page.getByLabel("Status").selectOption("");
    await page.getByLabel("Type").selectOption("provision_managed_runtime");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(1);
    expect(await table.locator("tbody tr").first().textContent()).toContain("2 / 5");

    // A job's page.
    await page.getByLabel("Type").selectOption("");
    await expect.poll(() => table.locator("tbody tr").count()).toBe(20);
    await table.locator("tbody tr").nth(1).getByRole("link").click();
    await page.waitForURL(`**/dashboard/jobs/${failed.id}`);
    await expect
      .poll(() => page.getByTestId("job-error").textContent(), { timeout: 15_000 })
      .toContain("no AI provider is configured: set AI_PROVIDER_URL and AI_PROVIDER_KEY");
    const status = await page.getByTestId("job-status").textContent();
    expect(status).toContain("Failed after 1 attempt");
    expect(status).toContain(failed.id);
    expect(status).toContain("runtime_exec");
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Chat message");
    await expectAccessible(page);

    // Another user's job is not found.
    const foreign = await job(other.user.id, "gateway_chat_completion", 29);
    await page.goto(`/dashboard/jobs/${foreign.id}`);
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 15_000 })
      .toBe("Job not found");
    await context.close();
    await other.context.close();
  }, 120_000);

  it("names the agent and shows a result as readable fields, its JSON behind a toggle (issue 26 item 6)", async () => {
    const { page, context, user } = await stack.signIn();
    const agent = await seedAgent(user.id, { url: null, name: "Night owl" });
    const deploy = await enqueueJob(
      db.pool,
      { now: () => new Date(Date.UTC(2026, 5, 1, 12)) },
      {
        jobType: "provision_managed_runtime",
        userId: user.id,
        agentId: agent.id,
        payload: { userId: user.id },
      },
    );
    const result = {
      agentId: agent.id,
      url: "http://127.0.0.1:45123",
      serviceId: "svc_local_1",
      image: "ghcr.io/openclaw/openclaw:2026.4.11",
      version: "2026.4.11",
      tokenGenerated: false,
    };
    await finish(deploy.id, { status: "completed", attempts: 1, result });

    await page.goto("/dashboard/jobs");
    const table = page.getByTestId("jobs-table");
    await expect.poll(() => table.locator("tbody tr").count(), { timeout: 15_000 }).toBe(1);
    await expect.poll(() => table.textContent()).toContain("agent Night owl");
    const row = (await table.textContent()) ?? "";
    expect(row).toContain("Agent: Night owl · Address: http://127.0.0.1:45123");
    expect(row).not.toContain(agent.id);
    expect(row).not.toContain("{");
    await expectAccessible(page);

    await page.goto(`/dashboard/jobs/${deploy.id}`);
    const fields = page.getByTestId("job-result-fields");
    await expect.poll(() => fields.isVisible(), { timeout: 15_000 }).toBe(true);
    const pairs = await fields
      .locator(":scope > div")
      .evaluateAll((divs) =>
        divs.map((div) => [div.querySelector("dt")?.textContent, div.querySelector("dd")?.textContent]),
      );
    expect(pairs).toEqual([
      ["Agent", "Night owl"],
      ["Address", "http://127.0.0.1:45123"],
      ["Service", "svc_local_1"],
      ["Image", "ghcr.io/openclaw/openclaw:2026.4.11"],
      ["Runtime version", "2026.4.11"],
      ["New gateway token", "no"],
    ]);
    expect(await page.getByTestId("job-status").textContent()).toContain("Night owl");
    // The JSON is there for whoever wants it, behind its toggle.
    const raw = page.getByTestId("job-result").locator("details pre");
    expect(await raw.isVisible()).toBe(false);
    await page.getByTestId("job-result").getByText("As JSON").click();
    await expect.poll(() => raw.isVisible()).toBe(true);
    expect(JSON.parse((await raw.textContent()) ?? "")).toEqual(result);
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("a user without jobs sees the empty state", async () => {
    const { page, context } = await stack.signIn();
    await page.goto("/dashboard/jobs");
    await expect.poll(() => page.getByText("No jobs yet").isVisible(), { timeout: 15_000 }).toBe(true);
    await expectAccessible(page);
    await context.close();
  }, 60_000);
});
