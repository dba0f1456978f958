/**
 * The API keys card of Settings in real headless Chromium against the built web app: a key made with the
 * areas and lifetime chosen on the page, copied with its button, listed with what it reaches and when it
 * expires, then used by a program (a bearer request, no cookies) that reaches what it was given and no
 * more; an expired key shows as expired. Checked for accessibility at both widths.
 */
import { apiKeys } from "@svc/db/schema";
import { eq } from "drizzle-orm";
import type { Page } from "playwright-core";
import { describe, expect, it } from "vitest";
import { webContext } from "../lib/infra/testing";
import { expectAccessible } from "./testing/a11y";
import { useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";

const stack = useDashboardStack({ withoutBackend: true });
const text = (page: Page, testId: string) => page.getByTestId(testId).textContent();
const card = (page: Page) => page.getByTestId("api-keys-card");

describe("Settings: API keys", () => {
  it("creates a key with chosen areas and a lifetime, copies it, and the key reaches only those areas", async () => {
    const { page, context } = await stack.signIn({ email: "ada.keys@example.com" });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.web.url });
    await page.goto("/dashboard/settings");
    await hydrated(page.getByRole("button", { name: "Create key" }));
    await expect.poll(() => text(page, "api-keys")).toContain("No API keys yet");

    // Nothing chosen: the form says what is missing and sends nothing.
    let creates = 0;
    page.on("request", (request) => {
      if (request.method() === "POST" && new URL(request.url()).pathname === "/api/keys") creates++;
    });
    await page.getByLabel("Key name", { exact: true }).fill("ci deploy");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect
      .poll(() => card(page).getByRole("alert").textContent())
      .toBe("Choose what the key can reach: everything, or read or write for at least one area.");
    expect(creates).toBe(0);

    // Agent: read and write; Files: read; 30 days.
    await page.getByLabel("Agent", { exact: true }).selectOption("write");
    await page.getByLabel("Files", { exact: true }).selectOption("read");
    await page.getByLabel("Expires after", { exact: true }).selectOption("30");
    await page.getByRole("button", { name: "Create key" }).click();
    await expect.poll(() => text(page, "new-api-key")).toMatch(/^svc_[A-Za-z0-9]{40}$/);
    const key = (await text(page, "new-api-key")) as string;
    expect(creates).toBe(1);
    expect(await text(page, "new-api-key-notice")).toContain("Agent (read and write), Files (read)");

    await page.getByRole("button", { name: "Copy key" }).click();
    await expect.poll(() => text(page, "copy-status")).toBe("Copied to the clipboard.");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key);

    // The list: what it reaches and when it expires, never the key itself.
    const row = page.getByRole("row", { name: /ci deploy/ });
    await expect.poll(() => row.textContent()).toContain("Agent (read and write), Files (read)");
    const listed = (await page.evaluate(() => fetch("/api/keys").then((r) => r.json()))).keys;
    expect(listed).toEqual([
      expect.objectContaining({
        name: "ci deploy",
        scopes: ["agent:write", "files:read"],
        expiresAt: expect.any(String),
        expired: false,
      }),
    ]);
    expect(await row.textContent()).not.toContain("Never");
    expect(await text(page, "api-keys")).not.toContain(key);

    // A program with the key: it reaches the files it may read, not the account or its keys.
    const bearer = { authorization: `Bearer ${key}` };
    const files = await fetch(`${stack.web.url}/api/files`, { headers: bearer });
    expect(files.status).toBe(200);
    const upload = await fetch(`${stack.web.url}/api/files`, { method: "POST", headers: bearer });
    expect(upload.status).toBe(403);
    expect(await upload.json()).toMatchObject({ code: "insufficient_scope", scope: "files:write" });
    expect((await fetch(`${stack.web.url}/api/keys`, { headers: bearer })).status).toBe(403);

    // A key for everything that never expires.
    await page.getByLabel("Key name", { exact: true }).fill("everything");
    await page.getByLabel("Everything (every area, now and later)").check();
    await expect.poll(() => page.getByLabel("Agent", { exact: true }).isVisible()).toBe(false);
    await page.getByLabel("Expires after", { exact: true }).selectOption("");
    await page.getByRole("button", { name: "Create key" }).click();
    const everything = page.getByRole("row", { name: /everything/ });
    await expect.poll(() => everything.textContent()).toContain("Everything");
    expect(await everything.textContent()).toContain("Never");

    await expectAccessible(page);

    // Once the first key's time is up, the list says so (the server's clock decides).
    await webContext()
      .db.update(apiKeys)
      .set({ expiresAt: new Date(Date.now() - 60_000) })
      .where(eq(apiKeys.name, "ci deploy"));
    await page.reload();
    await expect.poll(() => row.textContent()).toContain("Expired");
    const expired = await fetch(`${stack.web.url}/api/files`, { headers: bearer });
    expect(expired.status).toBe(401);
    expect((await expired.json()).code).toBe("api_key_expired");
    await expectAccessible(page);
    await context.close();
  }, 120_000);
});
