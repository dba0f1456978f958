/**
 * The web's security headers (issue 24, item 11) through the running server, and the pages under them in
 * real Chromium: the dashboard, the sign-in pages and `/docs` work with no Content-Security-Policy
 * violation (every `securitypolicyviolation` event and console error is collected), and no other site can
 * put a page of the platform in a frame.
 */
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { dashboardAreas } from "@/app/(dashboard)/areas";
import { DESKTOP_UA } from "./testing/browser";
import { E2E_DATA_ENCRYPTION_KEY, useDashboardStack } from "./testing/dashboard";
import { hydrated } from "./testing/hydration";
import { startPlatformBackend } from "./testing/platform-backend";

// The real backend with its permission WebSocket, which the approvals page holds through the web's origin.
const backend = await startPlatformBackend({}, { worker: false });
const stack = useDashboardStack({
  withoutBackend: true,
  webEnv: { BACKEND_URL: backend.url, DATA_ENCRYPTION_KEY: E2E_DATA_ENCRYPTION_KEY },
});
afterAll(() => backend.close());

const NONCE = /script-src 'self' 'nonce-([A-Za-z0-9+/]{22}==)' 'strict-dynamic'/;

/** Records console errors, and (from before the first script) the page's CSP violation events. */
async function watch(page: Page): Promise<{ errors: string[] }> {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __violations: string[] }).__violations = seen;
    document.addEventListener("securitypolicyviolation", (event) => {
      seen.push(`${event.violatedDirective} blocked ${event.blockedURI || "inline"} (${event.sourceFile})`);
    });
  });
  return { errors };
}

/** Resolves once Next's client runtime ran (its inline and chunk scripts were allowed to run). */
async function nextBooted(page: Page): Promise<void> {
  await page.waitForFunction(() =>
    Boolean((window as unknown as { next?: { version?: string } }).next?.version),
  );
}

/** The CSP violations the current document reported. */
async function violationsOf(page: Page): Promise<string[]> {
  return page.evaluate(() => (window as unknown as { __violations: string[] }).__violations ?? []);
}

describe("security headers through the running server", () => {
  it("every answer carries them: a fresh script nonce each time, no framing, same-origin referrers", async () => {
    const nonces = new Set<string>();
    for (const path of ["/", "/login", "/signup", "/docs", "/dashboard", "/api/health", "/api/nope"]) {
      const res = await fetch(`${stack.web.url}${path}`, { redirect: "manual" });
      const policy = res.headers.get("content-security-policy") ?? "";
      expect(policy, path).toMatch(NONCE);
      nonces.add(NONCE.exec(policy)?.[1] as string);
      expect(policy, path).toContain("frame-ancestors 'none'");
      expect(policy, path).toContain("object-src 'none'");
      expect(policy, path).toContain("base-uri 'none'");
      expect(policy, path).not.toContain("unsafe-eval");
      expect(
        policy.split("; ").find((d) => d.startsWith("script-src")),
        path,
      ).not.toContain("unsafe-inline");
      expect(res.headers.get("x-frame-options"), path).toBe("DENY");
      expect(res.headers.get("referrer-policy"), path).toBe("same-origin");
      expect(res.headers.get("x-content-type-options"), path).toBe("nosniff");
    }
    expect(nonces.size).toBe(7);
  });

  it("each page's scripts carry the nonce of its answer, the inline ones included; a client's own policy is not used", async () => {
    for (const path of ["/", "/login", "/signup", "/docs"]) {
      const res = await fetch(`${stack.web.url}${path}`, {
        headers: { "content-security-policy": "script-src 'nonce-chosenbytheclient'" },
      });
      const nonce = NONCE.exec(res.headers.get("content-security-policy") ?? "")?.[1];
      const html = await res.text();
      const scripts = [...html.matchAll(/<script\b[^>]*>/g)].map((m) => m[0]);
      expect(scripts.length, path).toBeGreaterThan(0);
      for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`);
      expect(html).not.toContain("chosenbytheclient");
    }
  });
});

describe("pages under the policy in Chromium", () => {
  it("the dashboard works with no violation: every area, the approvals page with its WebSocket", async () => {
    const { page, context } = await stack.signIn();
    const seen = await watch(page);
    await page.goto("/dashboard");
    await nextBooted(page);
    await hydrated(
      page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Settings" }),
    );
    await page.getByRole("navigation", { name: "Dashboard" }).getByRole("link", { name: "Settings" }).click();
    await page.waitForURL("**/dashboard/settings");
    await expect.poll(() => page.getByTestId("referral-code").textContent()).toMatch(/^[A-Z0-9]{8}$/);
    expect(await violationsOf(page)).toEqual([]);
    await page.goto("/dashboard/approvals");
    await expect
      .poll(() => page.getByTestId("approvals-live").textContent(), { timeout: 15_000 })
      .toContain("Live: new requests appear as they arrive.");
    expect(await violationsOf(page)).toEqual([]);
    // Every other area of the navigation, each loaded afresh.
    for (const area of dashboardAreas.filter((a) => !a.adminOnly && a.href !== "/dashboard/approvals")) {
      await page.goto(area.href);
      await nextBooted(page);
      await hydrated(page.getByRole("navigation", { name: "Dashboard" }).getByRole("link").first());
      await page.waitForLoadState("networkidle");
      expect(await violationsOf(page), area.href).toEqual([]);
    }
    expect(seen.errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    await context.close();
  }, 120_000);

  it("sign-in, sign-up and the home page run their scripts with no violation", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.web.url, userAgent: DESKTOP_UA });
    const page = await context.newPage();
    const seen = await watch(page);
    await page.goto("/");
    await nextBooted(page);
    expect(await violationsOf(page), "/").toEqual([]);
    for (const path of ["/login", "/signup"]) {
      await page.goto(path);
      await nextBooted(page);
      await hydrated(page.getByRole("button").first());
      expect(await violationsOf(page), path).toEqual([]);
    }
    expect(seen.errors.filter((e) => /Content Security Policy|Refused to/i.test(e))).toEqual([]);
    await context.close();
  }, 120_000);

  it("/docs renders the API description with no violation", async () => {
    const context = await stack.browser.newContext({ baseURL: stack.web.url });
    const page = await context.newPage();
    const seen = await watch(page);
    await page.goto("/docs");
    await page.locator(".opblock").first().waitFor();
    expect(await page.locator(".opblock").count()).toBeGreaterThan(50);
    // An operation opens (Swagger UI's own scripts and styles at work).
    await page.locator(".opblock-summary").first().click();
    await page.locator(".opblock-body").first().waitFor();
    expect(await violationsOf(page)).toEqual([]);
    expect(seen.errors).toEqual([]);
    await context.close();
  }, 120_000);

  it("another site cannot frame a page of the platform", async () => {
    const context = await stack.browser.newContext();
    const page = await context.newPage();
    const refused: string[] = [];
    page.on("console", (message) => refused.push(message.text()));
    // A page of another origin (about:blank here) framing the sign-in page.
    await page.setContent(`<iframe id="f" src="${stack.web.url}/login"></iframe>`);
    await expect.poll(() => refused.some((text) => /frame-ancestors|X-Frame-Options/.test(text))).toBe(true);
    const frame = page.frames().find((f) => f !== page.mainFrame());
    const framed = await frame?.evaluate(() => document.body?.innerText ?? "").catch(() => "");
    expect(framed ?? "").not.toContain("Sign in");
    await context.close();
  }, 60_000);
});
