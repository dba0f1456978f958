/**
 * Passkeys opened at the wrong address, in real Chromium: the web at its default-style address
 * `http://localhost:<port>` (PUBLIC_URL) also answers at `http://127.0.0.1:<port>`, where WebAuthn refuses
 * to work. The sign-in and settings pages say so in words and name the address that works, instead of the
 * browser's "127.0.0.1 is an invalid domain". Passkeys at the address `npm start` prints:
 * scripts/launcher-passkeys.test.ts.
 */
import { passkeys } from "@svc/db/schema";
import { describe, expect, it } from "vitest";
import { signedInUser, webContext } from "../lib/infra/testing";
import { SESSION_COOKIE } from "../lib/sessions/service";
import { expectAccessible } from "./testing/a11y";
import { addVirtualAuthenticator, DESKTOP_UA } from "./testing/browser";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const stack = useDashboardStack({ withoutBackend: true });
const atIp = () => stack.web.url.replace("//localhost:", "//127.0.0.1:");

describe("passkeys at an IP address", () => {
  it("sign-in: the error names the address passkeys work at", async () => {
    const { user } = await signedInUser();
    // A passkey of the account (registered at the right address): the sign-in asks the browser for it.
    await webContext()
      .db.insert(passkeys)
      .values({ id: "c2V0dXAtY3JlZGVudGlhbA", userId: user.id, publicKey: "AQID" });
    const context = await stack.browser.newContext({ baseURL: atIp(), userAgent: DESKTOP_UA });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    await page.goto("/login");
    const button = page.getByRole("button", { name: "Sign in with passkey" });
    await hydrated(button);
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await button.click();
    const alert = page.getByRole("form", { name: "Sign in with email and password" }).getByRole("alert");
    await expect
      .poll(() => alert.textContent())
      .toBe(
        `Passkeys need a domain name, and this page is open at an IP address (127.0.0.1). Open ${stack.web.url}/login and try again.`,
      );
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("settings: adding a passkey says the same, and nothing is added", async () => {
    const { token } = await signedInUser();
    const context = await stack.browser.newContext({ baseURL: atIp(), userAgent: DESKTOP_UA });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: atIp() }]);
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    await page.goto("/dashboard/settings");
    const add = page.getByRole("button", { name: "Add passkey" });
    await hydrated(add);
    await add.click();
    const card = page.getByTestId("passkeys-card");
    await expect
      .poll(() => card.getByRole("alert").textContent())
      .toBe(
        `Passkeys need a domain name, and this page is open at an IP address (127.0.0.1). Open ${stack.web.url}/dashboard/settings and try again.`,
      );
    expect(await page.getByTestId("passkeys").textContent()).toContain("No passkeys yet");
    await expectAccessible(page);
    await context.close();
  }, 120_000);
});
