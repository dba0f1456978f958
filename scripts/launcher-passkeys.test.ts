/**
 * Passkeys at the address `npm start` prints, with nothing configured: it is `http://localhost:<WEB_PORT>`
 * (an IP address such as 127.0.0.1 would make the browser refuse every passkey), the web's PUBLIC_URL is
 * that address, and in real Chromium with a virtual authenticator a passkey is added there and signs in.
 */
import { chmod, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { freePort } from "@svc/common";
import type { Browser } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import { addVirtualAuthenticator, DESKTOP_UA, launchChromium } from "../web/e2e/testing/browser";
import { hydrated } from "../web/e2e/testing/hydration";
import { type LauncherRun, runLauncher, stopLauncher } from "./testing/launcher";

const root = fileURLToPath(new URL("..", import.meta.url));
let dataDir = "";
let run: LauncherRun | undefined;
let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  if (run && run.child.exitCode === null) await stopLauncher(run);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe("npm start's address", () => {
  it("is http://localhost:<port>, printed, and passkeys work there", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "svc-launch-passkeys-"));
    await chmod(dataDir, 0o755);
    const webPort = await freePort();
    run = runLauncher(root, {
      WEB_PORT: String(webPort),
      BACKEND_PORT: String(await freePort()),
      SUMMARIZER_PORT: String(await freePort()),
      EMBEDDED_PG_PORT: String(await freePort()),
      DATA_DIR: dataDir,
    });
    await run.waitFor("Press Ctrl-C to stop.", 240_000);
    const url = `http://localhost:${webPort}`;
    expect(run.stdout()).toContain(`Open ${url} in your browser`);
    expect(run.stdout()).toContain(`web         ${url}   (health: /api/health)`);

    const email = "passkey-at-start@example.com";
    const password = "a long enough password";
    const registered = await fetch(`${url}/api/register`, {
      method: "POST",
      headers: { "content-type": "application/json", "user-agent": DESKTOP_UA },
      body: JSON.stringify({ email, password }),
    });
    expect(registered.status).toBe(201);

    browser = await launchChromium();
    const context = await browser.newContext({ baseURL: url, userAgent: DESKTOP_UA });
    const page = await context.newPage();
    await addVirtualAuthenticator(context, page);
    await page.goto("/login");
    await hydrated(page.getByRole("button", { name: "Sign in", exact: true }));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByLabel("Password", { exact: true }).fill(password);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL("**/dashboard");

    await page.goto("/dashboard/settings");
    await hydrated(page.getByRole("button", { name: "Add passkey" }));
    await page.getByLabel("Passkey name", { exact: true }).fill("Laptop");
    await page.getByRole("button", { name: "Add passkey" }).click();
    await expect
      .poll(() => page.getByTestId("passkeys").textContent(), { timeout: 15_000 })
      .toContain("Laptop");

    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL("**/login");
    await hydrated(page.getByRole("button", { name: "Sign in with passkey" }));
    await page.getByLabel("Email", { exact: true }).fill(email);
    await page.getByRole("button", { name: "Sign in with passkey" }).click();
    await page.waitForURL("**/dashboard");
    await expect.poll(() => page.getByTestId("signed-in-as").textContent()).toContain(email);
    await context.close();

    expect(await stopLauncher(run)).toBe(0);
  }, 400_000);
});
