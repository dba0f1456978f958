/**
 * The dashboard's Billing page in real headless Chromium against the built web app: card credit with its
 * "Buy credit" button (through the checkout route to a loopback fake of the card provider), the plugin price
 * list, how to call the gateway; and, on a server without STRIPE_SECRET_KEY, the notice saying so.
 */
import { startFakeStripe } from "@svc/common/testing";
import { cardCredits } from "@svc/db/schema";
import { afterAll, describe, expect, it } from "vitest";
import { readHeldStream, startFakePlugin } from "../lib/gateway/test-support";
import { signedInUser, webContext } from "../lib/infra/testing";
import { SESSION_COOKIE } from "../lib/sessions/service";
import { expectAccessible } from "./testing/a11y";
import { DESKTOP_UA, startWebServer } from "./testing/browser";
import { E2E_SESSION_SECRET, useDashboardStack } from "./testing/dashboard";

const stripe = await startFakeStripe();
const plugin = await startFakePlugin();
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: {
    STRIPE_SECRET_KEY: stripe.secretKey,
    STRIPE_API_BASE: stripe.url,
    GATEWAY_PLUGIN_GENERATE_TEXT_URL: plugin.url,
    GATEWAY_PLUGIN_TTS_URL: "http://127.0.0.1:9/tts",
  },
});
afterAll(async () => {
  await stripe.close();
  await plugin.close();
});

describe("POST /api/v1/gateway through the built app", () => {
  it("streams a card-paid call chunk by chunk through the real server, and answers 503 for MPP unconfigured", async () => {
    const { user, token } = await signedInUser();
    await webContext().db.insert(cardCredits).values({ userId: user.id, balanceUsd: "1" });
    const chunks = ['data: {"n":1}\n\n', 'data: {"n":2}\n\n'];
    const script = plugin.streamChunks(chunks);
    const res = await fetch(`${stack.web.url}/api/v1/gateway`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "text/event-stream",
        cookie: `${SESSION_COOKIE}=${token}`,
      },
      body: JSON.stringify({ plugin: "generate-text", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-plugin-id")).toBe("generate-text");
    // The first chunk is read while the upstream still holds the second: it came through unbuffered.
    expect(await readHeldStream(res, script)).toEqual({ first: chunks[0], rest: chunks[1] });
    const mpp = await fetch(`${stack.web.url}/api/v1/gateway`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-payment-method": "mpp" },
      body: JSON.stringify({ messages: [{ role: "user", content: "hi" }] }),
    });
    expect(mpp.status).toBe(503);
    expect(await mpp.json()).toMatchObject({
      error: "not_configured",
      message: expect.stringContaining("MPP_RECIPIENT"),
    });
  });
});

describe("/dashboard/billing", () => {
  it("shows the credit, the price list and how to call the gateway; Buy credit goes to the provider's checkout", async () => {
    const { page, context, user } = await stack.signIn();
    try {
      await webContext().db.insert(cardCredits).values({ userId: user.id, balanceUsd: "2.5" });
      await page.goto("/dashboard");
      await page.getByRole("link", { name: "Billing" }).click();
      await page.waitForURL("**/dashboard/billing");
      await expect.poll(() => page.getByTestId("credit-balance").textContent()).toBe("2.50 USD");
      const rows = page.getByTestId("plugin-price-list").locator("tbody tr");
      await expect.poll(() => rows.count()).toBe(4);
      const text = await page.getByTestId("plugin-price-list").innerText();
      for (const part of [
        "agent",
        "0.05 USD",
        "generate-text",
        "0.01 USD",
        "tts",
        "0.03 USD",
        "stt",
        "0.02 USD",
      ]) {
        expect(text).toContain(part);
      }
      expect(await rows.nth(3).innerText()).toContain("no upstream");
      const usage = await page.getByTestId("gateway-usage").innerText();
      expect(usage).toContain(`POST ${stack.web.url}/api/v1/gateway`);
      expect(usage).toContain("Authorization: Payment");
      expect(usage).toContain("X-Session-Id");
      expect(usage).toContain("MPP_RECIPIENT");
      await expectAccessible(page);

      await page.getByRole("link", { name: "Buy credit (5.00 USD)" }).click();
      await page.waitForURL(`${stripe.url}/c/pay/**`);
      expect(stripe.sessions).toHaveLength(1);
      expect(page.url()).toBe(stripe.sessions[0].url);
      expect(stripe.sessions[0].form.client_reference_id).toBe(user.id);
      await expect
        .poll(() => page.getByRole("heading", { level: 1 }).textContent())
        .toBe(`Checkout ${stripe.sessions[0].id}`);
    } finally {
      await context.close();
    }
  }, 120_000);

  it("says up front that card credit cannot be bought, on a server without STRIPE_SECRET_KEY", async () => {
    const web = await startWebServer({
      DATABASE_URL: process.env.DATABASE_URL as string,
      SESSION_SECRET: E2E_SESSION_SECRET,
      DATA_DIR: stack.dataDir,
    });
    const { token } = await signedInUser();
    const context = await stack.browser.newContext({
      baseURL: web.url,
      userAgent: DESKTOP_UA,
      viewport: { width: 1280, height: 800 },
    });
    try {
      await context.addCookies([{ name: SESSION_COOKIE, value: token, url: web.url }]);
      const page = await context.newPage();
      await page.goto("/dashboard/billing");
      const notice = page.getByTestId("unavailable-card_payments");
      await expect
        .poll(() => notice.textContent())
        .toBe("Buying card credit is not available on this server: card payments are not set up.");
      expect(await page.getByTestId("buy-credit").count()).toBe(0);
      expect(await page.getByTestId("credit-balance").textContent()).toBe("0.00 USD");
      await expectAccessible(page);
    } finally {
      await context.close();
      await web.stop();
    }
  }, 120_000);
});
