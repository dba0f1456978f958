/**
 * The Settings page in real headless Chromium against the built web app: the account and its email
 * check, the referral code and the credits it earns, passkeys (added with the CDP virtual authenticator,
 * then removed) and API keys (created, deleted), each behind the page's own controls.
 */
import { users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { addVirtualAuthenticator, DESKTOP_UA } from "./testing/browser";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const stack = useDashboardStack({ withoutBackend: true });
const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();

describe("Settings page", () => {
  it("shows the account and referral, adds and removes a passkey, creates and deletes an API key", async () => {
    const { page, context, user } = await stack.signIn({
      email: "grace.settings@example.com",
      emailVerified: false,
    });
    await addVirtualAuthenticator(context, page);
    await page.goto("/dashboard");
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Settings" }).click();
    await page.waitForURL("**/dashboard/settings");
    expect(await page.locator('nav[aria-label="Dashboard"] a[aria-current="page"]').textContent()).toBe(
      "Settings",
    );

    // Account: the email is not confirmed yet; once it is, the page says so.
    await expect.poll(() => text(page, "account-email")).toBe("grace.settings@example.com not confirmed");
    // A fresh link on request (deploying and chatting need the confirmation).
    await page.getByRole("button", { name: "Send the link again" }).click();
    await expect
      .poll(() => page.getByTestId("account-card").getByRole("status").textContent())
      .toBe("A new link is on its way to grace.settings@example.com; links sent before no longer work.");
    await webContext().db.update(users).set({ emailVerifiedAt: new Date() }).where(eq(users.id, user.id));
    await page.reload();
    await expect.poll(() => text(page, "account-email")).toBe("grace.settings@example.com confirmed");

    // Referral: someone signs up with the code; the credits show up here.
    await expect.poll(() => text(page, "referral-code")).toMatch(/^[A-Z0-9]{8}$/);
    const code = (await text(page, "referral-code")) as string;
    expect(await text(page, "referral-credits")).toBe("0");
    const other = await stack.browser.newContext({ baseURL: stack.web.url, userAgent: DESKTOP_UA });
    const signup = await other.newPage();
    await signup.goto("/signup");
    await hydrated(signup.getByRole("button", { name: "Create account" }));
    await signup.getByLabel("Email", { exact: true }).fill("referred@example.com");
    await signup.getByLabel("Password", { exact: true }).fill("a long enough password");
    // An unknown code is said under its field, not for the whole form.
    await signup.getByLabel("Referral code (optional)", { exact: true }).fill("NOSUCH00");
    await signup.getByRole("button", { name: "Create account" }).click();
    await expect
      .poll(() => signup.locator("#referralCode-error").textContent())
      .toBe("Referral code is unknown: check it, or leave it empty");
    await signup.getByLabel("Referral code (optional)", { exact: true }).fill(code);
    await signup.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => signup.getByRole("status").textContent()).toContain("Account created");
    await other.close();
    await page.reload();
    await expect.poll(() => text(page, "referral-credits")).not.toBe("0");
    expect(Number(await text(page, "referral-credits"))).toBeGreaterThan(0);

    // Passkeys: none, then one added with the virtual authenticator, then removed after the confirmation.
    await expect.poll(() => text(page, "passkeys")).toContain("No passkeys yet");
    await page.getByLabel("Passkey name", { exact: true }).fill("Work laptop");
    await page.getByRole("button", { name: "Add passkey" }).click();
    await expect.poll(() => text(page, "passkeys")).toContain("Work laptop");
    expect(await page.getByTestId("passkeys-card").getByRole("status").textContent()).toBe(
      'Passkey "Work laptop" added.',
    );
    const passkeys = await page.evaluate(() => fetch("/api/passkeys").then((r) => r.json()));
    expect(passkeys.passkeys).toHaveLength(1);

    // API keys: created (shown once), listed by prefix only; a double click creates one key.
    await expect.poll(() => text(page, "api-keys")).toContain("No API keys yet");
    let createRequests = 0;
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/keys") createRequests++;
    });
    await page.getByLabel("Key name", { exact: true }).fill("deploy script");
    await page.getByLabel("Agent", { exact: true }).selectOption("write");
    await page.getByRole("button", { name: "Create key" }).dblclick();
    await expect.poll(() => text(page, "new-api-key")).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    const key = (await text(page, "new-api-key")) as string;
    await expect.poll(() => text(page, "api-keys")).toContain(`${key.slice(0, 10)}…`);
    expect(await text(page, "api-keys")).not.toContain(key);
    const listed = await page.evaluate(() => fetch("/api/keys").then((r) => r.json()));
    expect(listed.keys).toEqual([
      expect.objectContaining({ name: "deploy script", prefix: key.slice(0, 10) }),
    ]);
    expect(createRequests).toBe(1);

    // Everything is on the page: the accessibility check, with a confirmation step open too.
    await expectAccessible(page);
    await page.getByRole("button", { name: "Delete API key deploy script" }).click();
    expect(await page.getByRole("group", { name: /Delete "deploy script"/ }).textContent()).toContain(
      'Delete "deploy script"?',
    );
    await expectAccessible(page);

    // Cancel keeps the key; Delete removes it.
    await page.getByRole("button", { name: "Cancel" }).click();
    await expect
      .poll(() => page.getByRole("button", { name: "Delete API key deploy script" }).count())
      .toBe(1);
    await page.getByRole("button", { name: "Delete API key deploy script" }).click();
    await page.getByRole("button", { name: "Delete key", exact: true }).click();
    await expect.poll(() => text(page, "api-keys")).toContain("No API keys yet");
    expect(await page.getByTestId("api-keys-card").getByRole("status").textContent()).toBe(
      'API key "deploy script" deleted.',
    );
    expect((await page.evaluate(() => fetch("/api/keys").then((r) => r.json()))).keys).toEqual([]);

    await page.getByRole("button", { name: "Remove passkey Work laptop" }).click();
    await page.getByRole("button", { name: "Remove passkey", exact: true }).click();
    await expect.poll(() => text(page, "passkeys")).toContain("No passkeys yet");
    await context.close();
  }, 120_000);
});
