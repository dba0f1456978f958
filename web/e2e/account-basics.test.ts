/**
 * Account basics in real headless Chromium against the built web app (issue 26 item 7): the confirmation
 * link signs in the browser that signed up and says so, "forgot password" and the reset page, and the
 * Settings cards that change the name, the password and the email and delete the account. Each page is
 * checked with axe at both widths; the mail is read from the web's DATA_DIR.
 */
import { users } from "@svc/db/schema";
import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { linkIn, mailsTo, waitForMail } from "../lib/accounts/testing";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { DESKTOP_UA } from "./testing/browser";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const stack = useDashboardStack({ withoutBackend: true });

async function freshPage(): Promise<Page> {
  const context = await stack.browser.newContext({ baseURL: stack.web.url, userAgent: DESKTOP_UA });
  return context.newPage();
}

/** A signed-in account with a password. */
async function signedInWithPassword(email: string, password: string) {
  const signedIn = await stack.signIn({ email });
  await webContext()
    .db.update(users)
    .set({ passwordHash: await bcrypt.hash(password, 4) })
    .where(eq(users.id, signedIn.user.id));
  return signedIn;
}

const loginNotice = (page: Page) => page.getByTestId("login-notice").textContent();

describe("account basics in the browser", () => {
  it("the confirmation link signs in the browser that signed up and says it worked; elsewhere the sign-in page says so", async () => {
    const page = await freshPage();
    const email = "confirm.me@example.com";
    await page.goto("/signup");
    await hydrated(page.getByRole("button", { name: "Create account" }));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect.poll(() => page.getByRole("status").textContent()).toContain("Account created");
    const link = linkIn(
      await waitForMail(stack.dataDir, email, "Confirm your email"),
      "/api/auth/verify-email?token=",
    );

    await page.goto(link);
    await page.waitForURL("**/dashboard?verified=1");
    await expect.poll(() => page.getByText("Your email address is confirmed.").count()).toBe(1);
    await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toContain(email);
    await page.context().close();

    // Someone else's browser (or a second device): confirmed, not signed in, and told so.
    const other = await freshPage();
    const second = "confirm.elsewhere@example.com";
    const signup = await other.context().request.post(`${stack.web.url}/api/register`, {
      data: { email: second, password: "a long enough password" },
      headers: { "user-agent": DESKTOP_UA },
    });
    expect(signup.status()).toBe(201);
    const elsewhere = await freshPage();
    await elsewhere.goto(
      linkIn(await waitForMail(stack.dataDir, second, "Confirm your email"), "/api/auth/verify-email?token="),
    );
    await elsewhere.waitForURL("**/login?verified=1");
    expect(await loginNotice(elsewhere)).toBe("Your email address is confirmed. Sign in to continue.");
    await expectAccessible(elsewhere);
    await other.context().close();
    await elsewhere.context().close();
  }, 120_000);

  it("forgot password: the link by mail, a new password on the reset page, then sign-in with it", async () => {
    const { user, context } = await signedInWithPassword("forgetful@example.com", "the old password");
    await context.close();
    const page = await freshPage();
    await page.goto("/login");
    await page.getByRole("link", { name: "Forgot your password?" }).click();
    await page.waitForURL("**/forgot-password");
    await hydrated(page.getByRole("button", { name: "Send the reset link" }));
    await expectAccessible(page);
    await page.getByLabel("Email", { exact: true }).fill("not an email");
    await page.getByRole("button", { name: "Send the reset link" }).click();
    await expect.poll(() => page.locator("#email-error").textContent()).toBe("Email is not a valid address");
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByRole("button", { name: "Send the reset link" }).click();
    await expect
      .poll(() => page.getByTestId("reset-sent").textContent())
      .toContain(`If an account uses ${user.email}`);
    await expectAccessible(page);

    const link = linkIn(await waitForMail(stack.dataDir, user.email, "Reset your"), "/reset-password?token=");
    await page.goto(link);
    await hydrated(page.getByRole("button", { name: "Set the new password" }));
    await expectAccessible(page);
    await page.getByLabel("New password", { exact: true }).fill("a brand new password");
    await page.getByLabel("New password again", { exact: true }).fill("a different one");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await expect
      .poll(() => page.locator("#confirm-error").textContent())
      .toBe("The two passwords are not the same.");
    await page.getByLabel("New password again", { exact: true }).fill("a brand new password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await page.waitForURL("**/login?reset=1");
    expect(await loginNotice(page)).toBe(
      "Your new password is set, and every session was signed out. Sign in with it.",
    );
    await expectAccessible(page);

    await hydrated(page.getByRole("button", { name: "Sign in", exact: true }));
    await page.getByLabel("Email", { exact: true }).fill(user.email);
    await page.getByLabel("Password", { exact: true }).fill("a brand new password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/dashboard");

    // The link works once: opened again, the page says to ask for a new one.
    await page.goto(link);
    await hydrated(page.getByRole("button", { name: "Set the new password" }));
    await page.getByLabel("New password", { exact: true }).fill("yet another password");
    await page.getByLabel("New password again", { exact: true }).fill("yet another password");
    await page.getByRole("button", { name: "Set the new password" }).click();
    await expect
      .poll(() => page.locator("form .error[role=alert]").textContent())
      .toBe("this reset link is invalid, already used or expired: ask for a new one. Send me a new link");
    await page.context().close();
  }, 120_000);

  it("Settings: change the name, the password and the email; then delete the account", async () => {
    const { page, user } = await signedInWithPassword("settler@example.com", "the first password");
    await page.goto("/dashboard/settings");
    const nameCard = page.getByTestId("name-card");
    await hydrated(nameCard.getByRole("button", { name: "Save name" }));

    // Name: the header follows.
    await nameCard.getByLabel("Name", { exact: true }).fill("Grace Hopper");
    await nameCard.getByRole("button", { name: "Save name" }).click();
    await expect.poll(() => nameCard.getByRole("status").textContent()).toBe("Name saved.");
    await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toContain("Grace Hopper");

    // Password: a wrong current one is said under its field; the right one changes it.
    const passwordCard = page.getByTestId("password-card");
    await passwordCard.getByLabel("Current password", { exact: true }).fill("not the password");
    await passwordCard.getByLabel("New password", { exact: true }).fill("the second password");
    await passwordCard.getByLabel("New password again", { exact: true }).fill("the second password");
    await passwordCard.getByRole("button", { name: "Change password" }).click();
    await expect
      .poll(() => page.locator("#currentPassword-error").textContent())
      .toBe("Current password is not right");
    await passwordCard.getByLabel("Current password", { exact: true }).fill("the first password");
    await passwordCard.getByRole("button", { name: "Change password" }).click();
    await expect
      .poll(() => passwordCard.getByRole("status").textContent())
      .toBe("Password changed. No other session was signed in.");

    // Email: pending until the link at the new address is opened.
    const emailCard = page.getByTestId("email-card");
    await emailCard.getByLabel("New email", { exact: true }).fill("hopper@example.com");
    await emailCard.getByLabel("Password", { exact: true }).fill("the second password");
    await emailCard.getByRole("button", { name: "Send the confirmation link" }).click();
    await expect.poll(() => page.getByTestId("pending-email").textContent()).toContain("hopper@example.com");
    await expectAccessible(page);
    const link = linkIn(
      await waitForMail(stack.dataDir, "hopper@example.com", "Confirm your new email"),
      "/api/account/email/confirm?token=",
    );
    await page.goto(link);
    await page.waitForURL("**/dashboard/settings?emailChanged=1");
    await expect.poll(() => page.getByTestId("email-changed").textContent()).toContain("hopper@example.com");
    await expect
      .poll(() => page.getByTestId("account-email").textContent())
      .toBe("hopper@example.com confirmed");
    expect(await mailsTo(stack.dataDir, user.email, "was changed")).toHaveLength(2);

    // Delete: the password, then the confirmation step.
    const deleteCard = page.getByTestId("delete-account-card");
    await hydrated(deleteCard.getByRole("button", { name: "Delete account" }));
    await deleteCard.getByLabel("Password", { exact: true }).fill("the second password");
    await expectAccessible(page);
    await deleteCard.getByRole("button", { name: "Delete account" }).click();
    await deleteCard.getByRole("button", { name: "Delete my account" }).click();
    await page.waitForURL("**/login?deleted=1");
    expect(await loginNotice(page)).toBe("Your account is deleted. We mailed you a last confirmation.");
    expect(await webContext().db.select().from(users).where(eq(users.id, user.id))).toEqual([]);
    await page.goto("/dashboard/settings");
    await page.waitForURL("**/login?next=%2Fdashboard%2Fsettings");
    await page.context().close();
  }, 120_000);
});
