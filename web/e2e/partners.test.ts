/** The public partner-inquiry page (/partners), linked from the home page, in real headless Chromium. */
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { partnerInquiries } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { DESKTOP_UA } from "./testing/browser";
import { useDashboardStack } from "./testing/dashboard";

const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { PARTNER_NOTIFY_EMAIL: "partners@platform.example" },
});

describe("Partner inquiry page", () => {
  it("is reached from the home page, shows field errors, and sends a fast-track inquiry", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.web.url, userAgent: DESKTOP_UA });
    const page = await context.newPage();
    await page.goto("/");
    await expectAccessible(page);
    await page.getByRole("link", { name: "Partner with us" }).click();
    await page.waitForURL("**/partners");
    await expectAccessible(page);

    const form = page.getByRole("form", { name: "Partner inquiry" });
    await form.getByLabel("Your name").fill("Grace");
    await form.getByLabel("Email").fill("grace@corp.example");
    await form.getByLabel("Message").fill("   ");
    await form.getByRole("button", { name: "Send inquiry" }).click();
    await expect.poll(() => page.locator("#message-error").textContent()).toBe("Message is required");
    await expectAccessible(page);

    await form.getByLabel("Company (optional)").fill("Corp <Inc>");
    await form.getByLabel("Kind of partnership").selectOption("enterprise");
    await form.getByLabel("Message").fill("We run 500 agents.");
    await form.getByRole("button", { name: "Send inquiry" }).click();
    await expect
      .poll(() => page.getByTestId("partner-result").textContent())
      .toContain("Your inquiry is on the fast track");

    const [row] = await webContext()
      .db.select()
      .from(partnerInquiries)
      .where(eq(partnerInquiries.email, "grace@corp.example"));
    expect(row).toMatchObject({ name: "Grace", company: "Corp <Inc>", type: "enterprise", fastTrack: true });
    const dir = join(stack.dataDir, "mail");
    const [file] = await readdir(dir);
    const mail = await readFile(join(dir, file), "utf8");
    expect(mail).toContain("To: partners@platform.example");
    expect(mail).toContain("Corp &#60;Inc&#62;");
    await context.close();
  }, 120_000);
});
