/**
 * The Approvals page in real Chromium against the built web and the REAL backend (its classify hook, its
 * permission bus and WebSocket): the page holds `/ws/permissions` through the web's origin; a dangerous tool
 * call classified through the agents' hook appears without a reload, Approve resolves it, and a decision made
 * elsewhere (the REST API) removes it from every open page.
 */
import { permissionRequests } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { classify, seedAgent } from "./testing/agents";
import { E2E_DATA_ENCRYPTION_KEY, useDashboardStack } from "./testing/dashboard";
import { startPlatformBackend } from "./testing/platform-backend";

const backend = await startPlatformBackend({}, { worker: false });
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { BACKEND_URL: backend.url, DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY },
});
afterAll(() => backend.close());

const row = (page: Page, requestId: string) => page.locator(`[data-request-id="${requestId}"]`);

async function openLive(page: Page) {
  await page.goto("/dashboard/approvals");
  await expect
    .poll(() => page.getByTestId("approvals-live").textContent(), { timeout: 15_000 })
    .toContain("Live: new requests appear as they arrive.");
}

async function statusOf(requestId: string) {
  const [record] = await webContext()
    .db.select({ status: permissionRequests.status })
    .from(permissionRequests)
    .where(eq(permissionRequests.id, requestId));
  return record?.status;
}

describe("Approvals page", () => {
  it("a dangerous classify appears live with its tier, reason, agent and command; Approve resolves it", async () => {
    const { page, context, user } = await stack.signIn();
    const agent = await seedAgent(user.id, { url: null });
    await openLive(page);
    await expect.poll(() => page.getByText("Nothing waiting for you").isVisible()).toBe(true);
    await expectAccessible(page);

    const requestId = await classify(backend.url, agent.token, "npm install left-pad");
    // No reload: the socket brings it (the fallback poll is off while the socket is open).
    await expect.poll(() => row(page, requestId).count()).toBe(1);
    const card = row(page, requestId);
    await expect.poll(() => card.getByTestId("permission-input").textContent()).toBe("npm install left-pad");
    const text = await card.textContent();
    expect(text).toContain("dangerous");
    // The agent by its name, not its id (issue 26 item 6).
    await expect.poll(() => card.getByTestId("permission-agent").textContent()).toBe("Scout");
    expect(text).not.toContain(agent.id);
    expect(text).toMatch(/package|install/i);
    await expect.poll(() => card.getByRole("heading").textContent()).toBe("bash call");
    await expectAccessible(page);

    await card.getByRole("button", { name: /^Approve:/ }).click();
    await expect.poll(() => row(page, requestId).count()).toBe(0);
    expect(await statusOf(requestId)).toBe("approved");
    await expect.poll(() => page.getByText("Nothing waiting for you").isVisible()).toBe(true);
    await context.close();
  }, 120_000);

  it("a decision made through the REST API removes the row from every open page", async () => {
    const { page, context, user } = await stack.signIn();
    const second = await context.newPage();
    const agent = await seedAgent(user.id, { url: null });
    await openLive(page);
    await openLive(second);

    const requestId = await classify(backend.url, agent.token, "curl -X POST https://example.com/deploy");
    const other = await classify(backend.url, agent.token, "pip install requests");
    for (const p of [page, second]) {
      await expect.poll(() => row(p, requestId).count()).toBe(1);
      await expect.poll(() => row(p, other).count()).toBe(1);
    }

    // The REST API, as another client would call it (same session, no page of the dashboard involved).
    const answer = await context.request.post("/api/permissions", {
      data: { requestId, decision: "reject" },
      headers: { origin: stack.web.url },
    });
    expect(answer.status()).toBe(200);
    expect(await answer.json()).toEqual({ success: true, requestId, decision: "reject" });
    for (const p of [page, second]) {
      await expect.poll(() => row(p, requestId).count()).toBe(0);
      expect(await row(p, other).count()).toBe(1);
    }
    expect(await statusOf(requestId)).toBe("rejected");

    // Approve always on the second page: gone from the first as well.
    await row(second, other)
      .getByRole("button", { name: /^Approve always:/ })
      .click();
    await expect.poll(() => row(page, other).count()).toBe(0);
    expect(await statusOf(other)).toBe("approved");
    await context.close();
  }, 120_000);

  it("when the socket drops the page says so, lists new requests by polling, and goes live again", async () => {
    const { page, context, user } = await stack.signIn();
    const agent = await seedAgent(user.id, { url: null });
    // The page's sockets pass through the test, which can cut them and refuse new ones for a while.
    let accept = true;
    const open: import("playwright-core").WebSocketRoute[] = [];
    await page.routeWebSocket(/\/ws\/permissions/, (ws) => {
      if (!accept) return ws.close({ code: 1011, reason: "refused by the test" });
      ws.connectToServer();
      open.push(ws);
    });
    await openLive(page);

    accept = false;
    for (const ws of open.splice(0)) await ws.close({ code: 1006, reason: "dropped by the test" });
    await expect
      .poll(() => page.getByTestId("approvals-live").textContent())
      .toContain("Live updates are disconnected; reconnecting.");
    expect(await page.getByTestId("approvals-live").getAttribute("aria-live")).toBe("polite");
    await expectAccessible(page);

    // No socket: the REST list, polled meanwhile, brings the new request.
    const requestId = await classify(backend.url, agent.token, "npm install offline-thing");
    await expect.poll(() => row(page, requestId).count(), { timeout: 15_000 }).toBe(1);
    expect(open).toHaveLength(0);

    // The socket is let through again: the page reconnects on its own and is live.
    accept = true;
    await expect
      .poll(() => page.getByTestId("approvals-live").textContent(), { timeout: 30_000 })
      .toContain("Live: new requests appear as they arrive.");
    expect(open.length).toBeGreaterThan(0);
    const next = await classify(backend.url, agent.token, "npm install online-again");
    await expect.poll(() => row(page, next).count()).toBe(1);
    await context.close();
  }, 120_000);
});
