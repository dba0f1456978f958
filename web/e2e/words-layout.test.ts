/**
 * Words and layout (issue 26, items 9 to 11) in real headless Chromium against the built web app: errors
 * name fields as the forms do and sit beside them; over-long input is refused with the limit, never cut;
 * a file too big names itself and the limit it passes; dates in the reader's locale and time zone; the
 * app's own 404 with a way back; the API docs in the navigation, and on a phone the current page scrolled
 * into view; "Welcome" on a first visit; the name (or the email) once in the header; only the next step
 * after signing up; sign-in returns to the page asked for; and buttons that wait for the page's script
 * instead of doing nothing before it. Accessible at both widths.
 */
import { randomBytes } from "node:crypto";
import { agents, files, scheduledTasks, users } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { BROWSER_UA, webContext } from "../lib/infra/testing";
import { createSession, SESSION_COOKIE } from "../lib/sessions/service";
import { expectAccessible } from "./testing/a11y";
import { DESKTOP_UA } from "./testing/browser";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const KB = 1024;
const stack = useDashboardStack({
  // Scheduled tasks need an AI provider set (the page disables new tasks otherwise); it is never called here.
  backendEnv: { AI_PROVIDER_KEY: "e2e-provider-key", AI_PROVIDER_URL: "http://127.0.0.1:9/v1" },
  webEnv: { FILE_MAX_BYTES: String(64 * KB), FILE_QUOTA_MB: "1" },
});

async function addAgent(userId: string, name = "Scout") {
  const [agent] = await webContext()
    .db.insert(agents)
    .values({ id: `agt_${randomBytes(8).toString("hex")}`, userId, name })
    .returning();
  return agent;
}

/** A signed-out browser context on the web (desktop user agent, 1280 px). */
async function signedOutPage(options: { javaScriptEnabled?: boolean } = {}) {
  const context = await stack.browser.newContext({
    baseURL: stack.web.url,
    userAgent: DESKTOP_UA,
    ...options,
  });
  return { context, page: await context.newPage() };
}

/** An account with a password, made through the running web's sign-up. */
async function registered(password: string) {
  const email = `words-${randomBytes(4).toString("hex")}@example.com`;
  const res = await fetch(`${stack.web.url}/api/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "user-agent": BROWSER_UA },
    body: JSON.stringify({ email, password, name: "Ada" }),
  });
  expect(res.status).toBe(201);
  return email;
}

async function signInThroughForm(page: Page, email: string, password: string) {
  await hydrated(page.getByRole("button", { name: "Sign in", exact: true }));
  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
}

describe("errors name fields as the form does", () => {
  it("a task's schedule is 'Schedule', shown under its field; an unknown referral code under its own", async () => {
    const { page, user, context } = await stack.signIn();
    await addAgent(user.id);
    await page.goto("/dashboard/tasks");
    const form = page.getByRole("form", { name: "Create a scheduled task" });
    await hydrated(form.getByRole("button", { name: "Create task" }));
    await form.getByLabel("Name").fill("Digest");
    await form.getByLabel("Schedule (cron, UTC)").fill("* * *");
    await form.getByLabel("Prompt").fill("Summarize.");
    await form.getByRole("button", { name: "Create task" }).click();
    const error = page.locator("#cronSchedule-error");
    await expect
      .poll(() => error.textContent(), { timeout: 15_000 })
      .toMatch(/^Schedule must have 5 or 6 fields/);
    expect(await error.textContent()).not.toContain("cronSchedule");
    expect(await form.getByLabel("Schedule (cron, UTC)").getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page);
    await context.close();

    const signup = await signedOutPage();
    await signup.page.goto("/signup");
    await hydrated(signup.page.getByRole("button", { name: "Create account" }));
    await signup.page
      .getByLabel("Email", { exact: true })
      .fill(`ref-${randomBytes(4).toString("hex")}@example.com`);
    await signup.page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await signup.page.getByLabel("Referral code (optional)").fill("NOSUCHCODE");
    await signup.page.getByRole("button", { name: "Create account" }).click();
    await expect
      .poll(() => signup.page.locator("#referralCode-error").textContent(), { timeout: 15_000 })
      .toMatch(/^Referral code is unknown/);
    await signup.context.close();
  }, 120_000);
});

describe("over-long input is refused with the limit, never cut", () => {
  it("a task name of 250 characters stays whole, the field says the limit, the server refuses it", async () => {
    const { page, user, context } = await stack.signIn();
    await addAgent(user.id);
    await page.goto("/dashboard/tasks");
    const form = page.getByRole("form", { name: "Create a scheduled task" });
    await hydrated(form.getByRole("button", { name: "Create task" }));
    const name = form.getByLabel("Name");
    await name.fill("n".repeat(250));
    expect((await name.inputValue()).length).toBe(250);
    await expect
      .poll(() => page.locator("#name-error").textContent())
      .toBe("Name must be at most 200 characters (it has 250)");
    await form.getByLabel("Schedule (cron, UTC)").fill("0 9 * * *");
    await form.getByLabel("Prompt").fill("Summarize.");
    await form.getByRole("button", { name: "Create task" }).click();
    await expect
      .poll(() => page.locator("#name-error").textContent(), { timeout: 15_000 })
      .toBe("Name must be at most 200 characters");
    expect(
      await webContext().db.select().from(scheduledTasks).where(eq(scheduledTasks.userId, user.id)),
    ).toEqual([]);
    await expectAccessible(page);
    await context.close();
  }, 120_000);
});

describe("a file too big for an upload", () => {
  it("names the file and the limit it passes: the per-file limit, or the free space left", async () => {
    const { page, user, context } = await stack.signIn();
    const agent = await addAgent(user.id);
    await page.goto("/dashboard/files");
    const upload = page.getByRole("button", { name: "Upload" });
    await hydrated(upload);
    // The limits are known to the page once the quota is read.
    await expect.poll(() => page.getByTestId("files-quota").textContent()).toBe("0 B of 1 MB used");
    const alert = page.getByTestId("files-upload").getByRole("alert");
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "Quarterly report.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.alloc(100 * KB),
    });
    await upload.click();
    await expect
      .poll(() => alert.textContent(), { timeout: 15_000 })
      .toBe("“Quarterly report.pdf” (100 KB) is bigger than the per-file limit of 64 KB.");

    // 992 KB of the 1 MB are taken: 32 KB are free.
    await webContext()
      .db.insert(files)
      .values({
        id: `file_${randomBytes(8).toString("hex")}`,
        userId: user.id,
        agentId: agent.id,
        filename: "archive.zip",
        storagePath: `missing-${randomBytes(8).toString("hex")}`,
        size: 1024 * KB - 32 * KB,
      });
    await page.reload();
    await hydrated(upload);
    await expect.poll(() => page.getByTestId("files-quota").textContent()).toBe("992 KB of 1 MB used");
    await page.getByLabel("File", { exact: true }).setInputFiles({
      name: "notes.pdf",
      mimeType: "application/pdf",
      buffer: Buffer.alloc(48 * KB),
    });
    await upload.click();
    await expect
      .poll(() => alert.textContent(), { timeout: 15_000 })
      .toBe(
        "“notes.pdf” (48 KB) is bigger than the free space left: 32 KB free of your 1 MB. Delete files to make room, then try again.",
      );
    await expectAccessible(page);
    await context.close();
  }, 120_000);
});

describe("dates", () => {
  it("are written in the reader's locale and time zone, naming the zone where it matters", async () => {
    const signedIn = await stack.signIn();
    await signedIn.context.close();
    const { user, token } = signedIn;
    const agent = await addAgent(user.id);
    const created = await fetch(`${stack.web.url}/api/scheduled-tasks`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: `${SESSION_COOKIE}=${token}` },
      body: JSON.stringify({
        name: "Digest",
        cronSchedule: "0 9 * * *",
        prompt: "Summarize.",
        agentId: agent.id,
      }),
    });
    expect(created.status).toBe(201);
    const [row] = await webContext()
      .db.select()
      .from(scheduledTasks)
      .where(eq(scheduledTasks.userId, user.id));

    const context = await stack.browser.newContext({
      baseURL: stack.web.url,
      userAgent: DESKTOP_UA,
      locale: "de-DE",
      timezoneId: "Asia/Tokyo",
    });
    await context.addCookies([{ name: SESSION_COOKIE, value: token, url: stack.web.url }]);
    const page = await context.newPage();
    await page.goto("/dashboard/tasks");
    const nextRun = page.getByTestId("tasks").getByTestId("task-next-run");
    await expect.poll(() => nextRun.count(), { timeout: 15_000 }).toBe(1);
    // What the reader's browser itself writes for that moment in their locale and zone.
    const expected = await page.evaluate(
      (iso) =>
        new Intl.DateTimeFormat(undefined, {
          year: "numeric",
          month: "short",
          day: "numeric",
          hour: "numeric",
          minute: "2-digit",
          timeZoneName: "short",
        }).format(new Date(iso)),
      (row.nextRun as Date).toISOString(),
    );
    expect(expected).toMatch(/^\d+\. \w+\.? \d{4}, 18:00 GMT\+9$/);
    await expect.poll(() => nextRun.textContent()).toBe(expected);
    expect(await nextRun.locator("time").getAttribute("datetime")).toBe((row.nextRun as Date).toISOString());
    await expectAccessible(page);
    await context.close();
  }, 120_000);
});

describe("layout", () => {
  it("an address with no page: a styled 404 inside the app, with a way back", async () => {
    const { page, context } = await stack.signIn();
    const missing = await page.goto("/dashboard/no-such-page");
    expect(missing?.status()).toBe(404);
    await expect.poll(() => page.getByRole("heading", { level: 1 }).textContent()).toBe("Page not found");
    expect(await page.getByRole("navigation", { name: "Dashboard" }).isVisible()).toBe(true);
    expect(await page.getByTestId("signed-in-as").isVisible()).toBe(true);
    await expectAccessible(page);
    await page.getByRole("link", { name: "Back to the overview" }).click();
    await page.waitForURL(`${stack.web.url}/dashboard`);

    const outside = await page.goto("/no-such-page");
    expect(outside?.status()).toBe(404);
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe("Page not found");
    expect(await page.getByRole("link", { name: "Go to your dashboard" }).getAttribute("href")).toBe(
      "/dashboard",
    );
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("the navigation links the API docs; on a phone it scrolls the current page into view", async () => {
    const { page, context } = await stack.signIn({ viewport: { width: 390, height: 800 } });
    await page.goto("/dashboard/settings");
    const nav = page.getByRole("navigation", { name: "Dashboard" });
    expect(await nav.getByRole("link", { name: "API docs" }).getAttribute("href")).toBe("/docs");
    const current = nav.locator('a[aria-current="page"]');
    expect(await current.textContent()).toBe("Settings");
    await hydrated(current);
    const inView = async () => {
      const [bar, link] = [await nav.boundingBox(), await current.boundingBox()];
      return !!bar && !!link && link.x >= bar.x && link.x + link.width <= bar.x + bar.width;
    };
    await expect.poll(inView).toBe(true);
    // Only the navigation scrolled, not the page.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    await expectAccessible(page);
    // Back at 390 px after the checks at other widths: the current page is in view again.
    await expect.poll(inView).toBe(true);
    await context.close();
  }, 120_000);

  it("a first visit says Welcome, a later one Welcome back; the header shows the name, or the email, once", async () => {
    const { page, user, context } = await stack.signIn();
    await page.goto("/dashboard");
    const description = page.locator(".page-description");
    await expect.poll(() => description.textContent(), { timeout: 15_000 }).toBe(`Welcome, ${user.name}.`);
    expect(await page.getByTestId("signed-in-as").textContent()).toBe(user.name);
    await expectAccessible(page);

    // Signed in elsewhere too: a visitor who has been here before.
    await createSession(webContext(), user.id);
    await webContext().db.update(users).set({ name: "" }).where(eq(users.id, user.id));
    await page.reload();
    await expect
      .poll(() => description.textContent(), { timeout: 15_000 })
      .toBe(`Welcome back, ${user.email}.`);
    expect(await page.getByTestId("signed-in-as").textContent()).toBe(user.email);
    await context.close();
  }, 120_000);

  it("after signing up the page holds only the next step", async () => {
    const { page, context } = await signedOutPage();
    await page.goto("/signup");
    await hydrated(page.getByRole("button", { name: "Create account" }));
    await expectAccessible(page);
    const email = `next-${randomBytes(4).toString("hex")}@example.com`;
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill("a long enough password");
    await page.getByRole("button", { name: "Create account" }).click();
    await expect
      .poll(() => page.getByRole("heading", { level: 1 }).textContent(), { timeout: 15_000 })
      .toBe("Check your email");
    expect(await page.getByTestId("signup-next-step").textContent()).toContain(email);
    expect(await page.locator("form").count()).toBe(0);
    expect(await page.getByText("Create your account").count()).toBe(0);
    expect(await page.getByText("Already have an account?").count()).toBe(0);
    expect(await page.getByRole("link", { name: "Sign in" }).getAttribute("href")).toBe("/login");
    await expectAccessible(page);
    await context.close();
  }, 120_000);

  it("sign-in returns to the page asked for, and only to a page of this site", async () => {
    const password = "a long enough password";
    const email = await registered(password);
    const { page, context } = await signedOutPage();
    await page.goto("/dashboard/jobs?status=failed");
    await page.waitForURL(
      `${stack.web.url}/login?next=${encodeURIComponent("/dashboard/jobs?status=failed")}`,
    );
    await expectAccessible(page);
    await signInThroughForm(page, email, password);
    await page.waitForURL(`${stack.web.url}/dashboard/jobs?status=failed`);
    await context.close();

    const other = await signedOutPage();
    await other.page.goto(`/login?next=${encodeURIComponent("//evil.example/steal")}`);
    await signInThroughForm(other.page, email, password);
    await other.page.waitForURL(`${stack.web.url}/dashboard`);
    await other.context.close();
  }, 120_000);
});

describe("buttons before the page's script has loaded", () => {
  it("without script, sign-in and sign-up buttons are off and the page says why", async () => {
    const { page, context } = await signedOutPage({ javaScriptEnabled: false });
    for (const [path, button] of [
      ["/login", "Sign in"],
      ["/signup", "Create account"],
    ]) {
      await page.goto(path);
      const html = await page.content();
      expect(await page.getByRole("button", { name: button, exact: true }).isDisabled(), html).toBe(true);
      // Automation's script switch leaves noscript unrendered (it is parsed as text): its markup is checked.
      expect(html, path).toContain('<noscript><p class="noscript">This site needs JavaScript:');
    }
    await context.close();
  }, 60_000);

  it("a form's button waits for the script, then works", async () => {
    const { page, context } = await stack.signIn();
    const gate: { open?: () => void } = {};
    const released = new Promise<void>((resolve) => {
      gate.open = resolve;
    });
    await context.route("**/_next/static/chunks/**", async (route) => {
      await released;
      await route.continue();
    });
    // Only the answer is waited for: the page's scripts are held back.
    await page.goto("/dashboard/settings", { waitUntil: "commit" });
    const create = page.getByRole("button", { name: "Create key" });
    await expect.poll(() => create.count()).toBe(1);
    expect(await create.isDisabled()).toBe(true);
    gate.open?.();
    await hydrated(create);
    await expect.poll(() => create.isEnabled()).toBe(true);
    await page.getByLabel("Key name", { exact: true }).fill("ci");
    await page.getByLabel("Everything (every area, now and later)").check();
    await create.click();
    await expect
      .poll(() => page.getByTestId("new-api-key").textContent(), { timeout: 15_000 })
      .toMatch(/^svc_/);
    await context.close();
  }, 120_000);
});
