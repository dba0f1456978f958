import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type FakeOidcProvider, startFakeOidcProvider } from "@svc/common/testing";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectAccessible } from "./testing/a11y";
import {
  addVirtualAuthenticator,
  contextWithAuthenticator,
  launchChromium,
  startWebServer,
  type WebServer,
} from "./testing/browser";
import { hydrated } from "./testing/hydration";

let server: WebServer;
let browser: Browser;
let dataDir: string;
let idp: FakeOidcProvider;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "svc-e2e-"));
  idp = await startFakeOidcProvider();
  server = await startWebServer({
    IDP_ISSUER: idp.issuer,
    IDP_CLIENT_ID: idp.clientId,
    IDP_CLIENT_SECRET: idp.clientSecret,
    DATABASE_URL: process.env.DATABASE_URL as string,
    SESSION_SECRET: "e2e-session-secret-0123456789abcdef",
    DATA_DIR: dataDir,
  });
  browser = await launchChromium();
}, 240_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
  await idp?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("accounts in a real browser", () => {
  it("sign up, sign in with a password, add a passkey, manage API keys, sign out, sign in with the passkey", async () => {
    const context = await contextWithAuthenticator(browser, server.url);
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    const email = "grace@example.com";

    // Sign up: a field error is shown next to its field, then the account is created.
    await page.goto("/signup");
    await hydrated(page.getByRole("button", { name: "Create account" }));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("short");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect
      .poll(() => page.locator("#password-error").textContent())
      .toBe("Password must be at least 8 characters");
    await page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await page.getByLabel("Name (optional)", { exact: true }).fill("Grace");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain(`Account created for ${email}`);
    const mail = await readFile(join(dataDir, "mail", (await readdir(join(dataDir, "mail")))[0]), "utf8");
    expect(mail).toContain("/api/auth/verify-email?token=");

    // Password sign-in (CSRF token fetched by the page).
    await page.goto("/login");
    await hydrated(page.getByRole("button", { name: "Sign in", exact: true }));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("wrong password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect
      .poll(() => page.locator("form .error[role=alert]").textContent())
      .toBe("invalid email or password");
    await page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/dashboard");
    await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toContain("Grace");
    await expect.poll(() => page.getByTestId("trial").textContent()).toContain("7 days left");
    expect(await page.locator('nav[aria-label="Dashboard"] a[aria-current="page"]').textContent()).toBe(
      "Overview",
    );

    // Settings, through the navigation: the account, the referral code, passkeys and API keys.
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Settings" }).click();
    await page.waitForURL("**/dashboard/settings");
    await expect.poll(() => page.getByTestId("account-email").textContent()).toContain("not confirmed");
    await expect.poll(() => page.getByTestId("referral-code").textContent()).toMatch(/^[A-Z0-9]{8}$/);
    await expectAccessible(page);

    // Add a passkey with the virtual authenticator.
    await page.getByLabel("Passkey name", { exact: true }).fill("Laptop");
    await page.getByRole("button", { name: "Add passkey" }).click();
    await expect.poll(() => page.getByTestId("passkeys").textContent()).toContain("Laptop");

    // API keys: create (shown once), listed by prefix, delete after the confirmation step.
    await page.getByLabel("Key name", { exact: true }).fill("ci");
    await page.getByLabel("Everything (every area, now and later)").check();
    await page.getByRole("button", { name: "Create key" }).click();
    const key = await page.getByTestId("new-api-key").textContent();
    expect(key).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    await expect.poll(() => page.getByTestId("api-keys").textContent()).toContain(`${key?.slice(0, 10)}…`);
    await expect.poll(() => page.getByTestId("api-keys").textContent()).not.toContain(key as string);
    await page.getByRole("button", { name: "Delete API key ci" }).click();
    await page.getByRole("button", { name: "Delete key", exact: true }).click();
    await expect.poll(() => page.getByRole("button", { name: "Delete API key ci" }).count()).toBe(0);
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: 'API key "ci" deleted.' }).count())
      .toBe(1);

    // Sign out, then sign in with the passkey alone.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    const session = await page.evaluate(() => fetch("/api/auth/session").then((r) => r.json()));
    expect(session).toEqual({ user: null });
    await hydrated(page.getByRole("button", { name: "Sign in with passkey" }));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Sign in with passkey" }).click();
    await page.waitForURL("**/dashboard");
    await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toBe("Grace");
    await context.close();
  }, 120_000);

  it("signs in with the identity provider: a new account, then back to the dashboard", async () => {
    idp.setAccount({
      sub: "browser-sub-1",
      email: "Lin@Example.com",
      email_verified: true,
      name: "Lin Provider",
    });
    const context = await contextWithAuthenticator(browser, server.url);
    const page = await context.newPage();
    await page.goto("/login");
    await page.getByRole("link", { name: "Continue with identity provider" }).click();
    await page.waitForURL("**/dashboard");
    await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toBe("Lin Provider");
    idp.setAuthorizeError("access_denied");
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    await page.getByRole("link", { name: "Continue with identity provider" }).click();
    await page.waitForURL("**/login?error=AccessDenied");
    await expect
      .poll(() => page.locator("main > .error[role=alert]").textContent())
      .toBe("You cancelled the sign-in at the identity provider.");
    idp.reset();
    await context.close();
  }, 60_000);

  it("the dashboard sends a signed-out visitor to the login page", async () => {
    const context = await contextWithAuthenticator(browser, server.url);
    const page = await context.newPage();
    await page.goto("/dashboard");
    await page.waitForURL("**/login");
    await expect.poll(() => page.getByRole("heading", { name: "Sign in" }).isVisible()).toBe(true);
    await context.close();
  }, 60_000);
});
