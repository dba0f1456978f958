/**
 * The setup checklist in real Chromium against the built web and the real backend (no AI provider, no
 * hosting platform, the runtime not installed, nothing else configured): an admin's Overview lists every
 * capability with its state and what to set; a user's says what is unavailable; pages whose feature is off
 * say so up front and disable the action; the sign-in page offers no identity provider that is not there.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { agents } from "@svc/db/schema";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const ADMIN = "setup-e2e-admin@example.com";
const runtimes = await mkdtemp(join(tmpdir(), "svc-setup-e2e-"));
afterAll(() => rm(runtimes, { recursive: true, force: true }));
const stack = useDashboardStack({
  backendEnv: { RUNTIMES_DIR: runtimes },
  webEnv: { ADMIN_EMAILS: ADMIN },
});

const stateOf = (page: Page, id: string) => page.getByTestId(`setup-${id}-state`).textContent();

describe("Setup checklist", () => {
  it("an admin's Overview lists each capability with its state, what to set, where and whether to restart", async () => {
    const { page, context } = await stack.signIn({ email: ADMIN });
    await page.goto("/dashboard");
    const checklist = page.getByTestId("setup-checklist");
    expect(await checklist.locator("h2").textContent()).toBe("Setup checklist");
    expect(await checklist.textContent()).toContain("0 of 7 ready");
    expect(await stateOf(page, "ai_provider")).toBe("Not configured");
    expect(await stateOf(page, "hosting")).toBe("Not configured");
    expect(await stateOf(page, "agent_runtime")).toBe("Needs attention");
    expect(await stateOf(page, "mail")).toBe("Needs attention");
    for (const id of ["card_payments", "mpp", "identity_provider"])
      expect(await stateOf(page, id)).toBe("Not configured");

    // The variables behind their toggle: which one is missing, never a value.
    await page.getByTestId("setup-ai_provider").getByText("Variables (1 required not set)").click();
    const ai = await page.getByTestId("setup-ai_provider").innerText();
    expect(ai).toContain("Chat, scheduled tasks, persona evaluation and the gateway's AI plugins fail");
    expect(ai).toMatch(/AI_PROVIDER_KEY \(backend\)\s+not set/);
    expect(ai).toContain("Restart the platform after the change.");
    expect(await checklist.textContent()).toContain("Set variables in the .env file beside .env.example");
    const runtime = await page.getByTestId("setup-agent_runtime").innerText();
    expect(runtime).toContain("npm run runtime:install");
    expect(runtime).toContain("No restart needed.");
    expect(await page.getByTestId("setup-mail").innerText()).toContain(`${stack.dataDir}/mail`);
    await expectAccessible(page);

    // The Chat page says so up front, with what to set and the way back to the checklist.
    await page.goto("/dashboard/chat");
    const notice = page.getByTestId("unavailable-ai_provider");
    expect(await notice.innerText()).toContain("Chat is not available on this server");
    expect(await notice.innerText()).toContain("Set AI_PROVIDER_KEY for the backend");
    expect(await notice.getByRole("link", { name: "See the setup checklist" }).getAttribute("href")).toBe(
      "/dashboard#setup",
    );
    await context.close();
  }, 120_000);

  it("a user reads what is unavailable; Chat and new tasks are disabled up front, Persona says so; Billing's AI plugins are not available", async () => {
    const { page, context, user } = await stack.signIn();
    await page.goto("/dashboard");
    expect(await page.getByTestId("setup-checklist").count()).toBe(0);
    const unavailable = await page.getByTestId("setup-unavailable").innerText();
    expect(unavailable).toContain("Not available on this server");
    expect(unavailable).toContain(
      "Chat with your agent, scheduled tasks and persona evaluation: this server has no AI provider set up yet",
    );
    expect(unavailable).toContain("Deploying an agent: this server cannot start agents right now.");
    expect(unavailable).not.toMatch(/[A-Z]+_[A-Z_]+/);
    await expectAccessible(page);

    await page.goto("/dashboard/chat");
    const notice = page.getByTestId("unavailable-ai_provider");
    expect(await notice.innerText()).toBe(
      "Chat is not available on this server: it has no AI provider set up yet, so your agent cannot answer.",
    );
    const send = page.getByRole("button", { name: "Send" });
    await hydrated(send);
    expect(await page.getByLabel("Message", { exact: true }).isDisabled()).toBe(true);
    expect(await send.isDisabled()).toBe(true);
    await expectAccessible(page);

    await page.goto("/dashboard/persona");
    expect(await page.getByTestId("unavailable-ai_provider").innerText()).toContain(
      "Persona evaluations cannot run on this server",
    );

    await webContext()
      .db.insert(agents)
      .values({ id: `agt_setup_${user.id}`, userId: user.id, name: "Setup agent" });
    await page.goto("/dashboard/tasks");
    expect(await page.getByTestId("unavailable-ai_provider").innerText()).toContain(
      "Scheduled tasks cannot be created on this server",
    );
    const create = page.getByRole("button", { name: "Create task" });
    await hydrated(create);
    expect(await create.isDisabled()).toBe(true);

    await page.goto("/dashboard/billing");
    const rows = page.getByTestId("plugin-price-list").locator("tbody tr");
    await expect.poll(() => rows.count()).toBe(4);
    expect(await rows.nth(0).innerText()).toContain("no AI provider");
    expect(await rows.nth(1).innerText()).toContain("no AI provider");
    expect(await page.getByTestId("unavailable-card_payments").innerText()).toBe(
      "Buying card credit is not available on this server: card payments are not set up.",
    );
    expect(await page.getByTestId("buy-credit").count()).toBe(0);
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("the sign-in page shows no identity-provider button when none is configured", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.web.url });
    const page = await context.newPage();
    await page.goto("/login");
    await hydrated(page.getByRole("button", { name: "Sign in with passkey" }));
    expect(await page.getByText("Continue with identity provider").count()).toBe(0);
    await context.close();
  }, 60_000);
});
